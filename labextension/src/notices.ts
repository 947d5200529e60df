/**
 * The notices under the conversation (retries, compaction, notifications, request errors): pure
 * functions over the list, used by the model's fold.
 */
import type { CompactionFrame, RetryFrame } from './protocol';

/** A line under the conversation: retries, compaction, notifications, errors. */
export interface Notice {
  /** Notices with the same key replace each other (`retry`, `compaction`, `error`). */
  readonly key: string;
  readonly level: 'info' | 'warning' | 'error';
  readonly text: string;
  /** `retry`: offer to send the last message again. */
  readonly action: 'retry' | null;
}

/** How many `notify` notices are kept. */
export const MAX_NOTIFY = 5;

/** `notices` with `notice` in place of the one with the same key, last. */
export function putNotice(notices: readonly Notice[], notice: Notice): Notice[] {
  return [...notices.filter(n => n.key !== notice.key), notice];
}

/** The notice of a retry frame; null once a retry succeeded (the notice goes). */
export function retryNotice(frame: RetryFrame): Notice | null {
  if (frame.phase === 'start') {
    const seconds = Math.round((frame.delayMs ?? 0) / 1000);
    const of = frame.maxAttempts ? `/${frame.maxAttempts}` : '';
    const why = frame.errorMessage ? ` after "${frame.errorMessage}"` : '';
    return { key: 'retry', level: 'warning', text: `Retrying in ${seconds} s (attempt ${frame.attempt}${of})${why}`, action: null };
  }
  if (frame.success) {
    return null;
  }
  return { key: 'retry', level: 'error', text: `Retry failed: ${frame.finalError ?? 'gave up'}`, action: 'retry' };
}

/** The notice of a compaction frame. */
export function compactionNotice(frame: CompactionFrame): Notice {
  const key = 'compaction';
  if (frame.phase === 'start') {
    return { key, level: 'info', text: `Compacting the context (${frame.reason})…`, action: null };
  }
  if (frame.errorMessage) {
    return { key, level: 'error', text: `Compaction failed: ${frame.errorMessage}`, action: null };
  }
  if (frame.aborted) {
    return { key, level: 'warning', text: 'Compaction was cancelled.', action: null };
  }
  const before = frame.tokensBefore ? ` (${frame.tokensBefore} tokens before)` : '';
  const retry = frame.willRetry ? '; retrying the request' : '';
  return { key, level: 'info', text: `Context compacted${before}${retry}.`, action: null };
}

/** `notices` plus notification number `count`, keeping the newest `MAX_NOTIFY` notifications. */
export function addNotify(notices: readonly Notice[], count: number, level: Notice['level'], text: string): Notice[] {
  const notice: Notice = { key: `notify-${count}`, level, text, action: null };
  const older = notices.filter(n => n.key.startsWith('notify-')).slice(-(MAX_NOTIFY - 1));
  return [...notices.filter(n => !n.key.startsWith('notify-')), ...older, notice];
}
