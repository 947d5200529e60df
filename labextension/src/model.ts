/**
 * The panel's model: chat frames folded into view state.
 *
 * `applyFrame(state, frame)` is a pure function (no I/O, no clock, no DOM): the same frames give the
 * same state, which is what the unit tests check against the golden NDJSON streams that the Python
 * tests parse too. `fromSession` builds the state of a session from its hydration (`chat/session`);
 * folding the frames that follow its `cursor` then gives the same state as having watched them live.
 * The controller owns the state and hands it to the widgets, which only render it.
 */
import type {
  ChatFrame,
  ChatMessage,
  ChatSessionResponse,
  ModelRef,
  Question,
  Usage
} from './protocol';
import {
  MessageView,
  appendDelta,
  appendToolInput,
  endMessage,
  messageView,
  setUsage,
  stopStreaming,
  streamingMessage,
  upsertTool
} from './messages';
import { Notice, addNotify, compactionNotice, putNotice, retryNotice } from './notices';
import { coalesce, firstText, isToolPart } from './wire';

export type { MessageView, PartView, ToolView } from './messages';
export type { Notice } from './notices';
export { MAX_NOTIFY } from './notices';
export { coalesce };

/** What the panel shows of one session. */
export interface ViewState {
  readonly sessionId: string | null;
  /** The session's name, when it has one. */
  readonly name: string | null;
  readonly messages: readonly MessageView[];
  /** The run going on, if any. */
  readonly runId: string | null;
  readonly steering: readonly string[];
  readonly followUp: readonly string[];
  /** Pending questions, oldest first. */
  readonly questions: readonly Question[];
  readonly notices: readonly Notice[];
  readonly statuses: Readonly<Record<string, string>>;
  readonly widgets: Readonly<Record<string, readonly string[]>>;
  /** What the session's assistant messages cost so far. */
  readonly usage: Usage | null;
  readonly contextTokens: number | null;
  readonly contextWindow: number | null;
  readonly model: ModelRef | null;
  readonly thinkingLevel: string | null;
  readonly capabilities: readonly string[];
  /** Set by `resync-required`: the owner must refetch the session. */
  readonly resync: 'cursor-expired' | 'history-changed' | null;
  /** How many `notify` frames were seen: gives each its own notice key. */
  readonly notified: number;
}

/** The state of no session at all. */
export function emptyState(sessionId: string | null = null): ViewState {
  return {
    sessionId,
    name: null,
    messages: [],
    runId: null,
    steering: [],
    followUp: [],
    questions: [],
    notices: [],
    statuses: {},
    widgets: {},
    usage: null,
    contextTokens: null,
    contextWindow: null,
    model: null,
    thinkingLevel: null,
    capabilities: [],
    resync: null,
    notified: 0
  };
}

/**
 * The state of a session as `chat/session` returned it (messages include the live run). With the
 * `previous` state of the same session (a resync), messages keep their render keys: by id, and for the
 * message that was streaming (or sent and not yet confirmed) by position, since its id changed since.
 */
export function fromSession(response: ChatSessionResponse, previous?: ViewState): ViewState {
  const live = response.live ?? null;
  const streamingId = live?.message?.id ?? null;
  const same = previous?.sessionId === response.session.sessionId ? previous.messages : [];
  const messages = response.messages.map((m, i) => ({
    ...messageView(m, carriedKey(same, m, i)),
    streaming: m.id === streamingId
  }));
  return {
    ...emptyState(response.session.sessionId),
    name: response.session.name ?? null,
    messages,
    runId: live ? live.runId : null,
    steering: response.steering ?? [],
    followUp: response.followUp ?? [],
    questions: response.pendingQuestions ?? [],
    usage: response.usage ?? null,
    contextTokens: response.contextTokens ?? null,
    contextWindow: response.contextWindow ?? null,
    model: response.model ?? null,
    thinkingLevel: response.thinkingLevel ?? null,
    capabilities: previous?.capabilities ?? []
  };
}

function carriedKey(previous: readonly MessageView[], message: ChatMessage, index: number): string {
  const before = previous[index];
  if (before && before.role === message.role && (before.id === message.id || before.streaming || before.pending)) {
    return before.key;
  }
  return previous.find(m => m.id === message.id)?.key ?? message.id;
}

/** Whether a run is going on. */
export function isRunning(state: ViewState): boolean {
  return state.runId !== null;
}

/** Add the optimistic copy of a message this client is sending (`localId` is the client's own id). */
export function addLocalMessage(state: ViewState, localId: string, text: string, now: number): ViewState {
  const message: MessageView = {
    ...messageView({ id: localId, role: 'user', parts: [{ type: 'text', text }], createdAt: now }),
    pending: true
  };
  return { ...state, messages: [...state.messages, message] };
}

/** Drop optimistic messages (their request failed) and show why, offering to retry. */
export function failLocal(state: ViewState, message: string): ViewState {
  const messages = state.messages.filter(m => !m.pending);
  const notice: Notice = { key: 'error', level: 'error', text: message, action: 'retry' };
  return { ...state, messages, notices: putNotice(state.notices, notice) };
}

/**
 * The run could not start (no API key, an unknown model): the optimistic copies stay, marked failed so
 * the user can retry or edit them, and the notice says why (the message carries the retry).
 */
export function refuseLocal(state: ViewState, message: string): ViewState {
  const messages = state.messages.map(m => (m.pending ? { ...m, pending: false, failed: true } : m));
  const notice: Notice = { key: 'error', level: 'error', text: message, action: null };
  return { ...state, messages, notices: putNotice(state.notices, notice) };
}

/** `state` without the failed message `key`, and the text it held (null when there is none). */
export function takeFailed(state: ViewState, key: string): [ViewState, string | null] {
  const message = state.messages.find(m => m.key === key && m.failed);
  if (!message) {
    return [state, null];
  }
  const messages = state.messages.filter(m => m !== message);
  return [dismissNotice({ ...state, messages }, 'error'), firstText(message.parts)];
}

/** Whether the session shows nothing the server holds (only messages that were never sent). */
export function nothingSent(state: ViewState): boolean {
  return state.messages.every(m => m.failed || m.pending);
}

/** Remove the notice with `key`. */
export function dismissNotice(state: ViewState, key: string): ViewState {
  return { ...state, notices: state.notices.filter(n => n.key !== key) };
}

function withRecord<T>(record: Readonly<Record<string, T>>, key: string, value: T | null | undefined): Record<string, T> {
  const copy: Record<string, T> = { ...record };
  if (value === null || value === undefined) {
    delete copy[key];
  } else {
    copy[key] = value;
  }
  return copy;
}

/** The state after one frame. Frames of another session must not be passed in. */
export function applyFrame(state: ViewState, frame: ChatFrame): ViewState {
  switch (frame.type) {
    case 'start':
      return { ...state, sessionId: frame.sessionId, runId: frame.runId, resync: null };
    case 'message-start':
      return { ...state, messages: [...state.messages, streamingMessage(frame.messageId, frame.createdAt ?? null)] };
    case 'text-delta':
      return { ...state, messages: appendDelta(state.messages, frame.messageId, frame.index, 'text', frame.delta) };
    case 'reasoning-delta':
      return { ...state, messages: appendDelta(state.messages, frame.messageId, frame.index, 'reasoning', frame.delta) };
    case 'tool-input-delta':
      return {
        ...state,
        messages: appendToolInput(state.messages, frame.messageId, frame.index, frame.toolCallId, frame.delta)
      };
    case 'tool':
      return { ...state, messages: upsertTool(state.messages, frame.messageId, frame.index, frame.part) };
    case 'message-end':
      return { ...state, messages: endMessage(state.messages, frame.messageId, frame.message) };
    case 'usage':
      return {
        ...state,
        messages: setUsage(state.messages, frame.messageId, frame.usage),
        usage: frame.total,
        contextTokens: frame.contextTokens,
        contextWindow: frame.contextWindow ?? state.contextWindow
      };
    case 'done':
      return { ...state, runId: null, messages: stopStreaming(state.messages), steering: [], followUp: [] };
    case 'error':
      return failLocal(frame.runId && frame.runId === state.runId ? { ...state, runId: null } : state, frame.message);
    default:
      return applySideFrame(state, frame);
  }
}

/** Frames that do not touch the messages. */
function applySideFrame(state: ViewState, frame: ChatFrame): ViewState {
  switch (frame.type) {
    case 'retry': {
      const notice = retryNotice(frame);
      return notice ? { ...state, notices: putNotice(state.notices, notice) } : dismissNotice(state, 'retry');
    }
    case 'compaction':
      return { ...state, notices: putNotice(state.notices, compactionNotice(frame)) };
    case 'queue':
      return { ...state, steering: frame.steering ?? [], followUp: frame.followUp ?? [] };
    case 'question':
      return state.questions.some(q => q.id === frame.id)
        ? state
        : { ...state, questions: [...state.questions, questionOf(frame)] };
    case 'question-resolved':
      return { ...state, questions: state.questions.filter(q => q.id !== frame.id) };
    case 'notify':
      return {
        ...state,
        notified: state.notified + 1,
        notices: addNotify(state.notices, state.notified + 1, frame.level ?? 'info', frame.message)
      };
    case 'status':
      return { ...state, statuses: withRecord(state.statuses, frame.key, frame.text) };
    case 'widget':
      return { ...state, widgets: withRecord(state.widgets, frame.key, frame.lines) };
    case 'session-info':
      return { ...state, name: frame.name ?? null };
    case 'model':
      return {
        ...state,
        model: { provider: frame.provider, id: frame.id },
        contextWindow: frame.contextWindow ?? state.contextWindow
      };
    case 'thinking-level':
      return { ...state, thinkingLevel: frame.level };
    case 'resync-required':
      return { ...state, resync: frame.reason ?? 'cursor-expired' };
    case 'connected':
      return { ...state, capabilities: frame.capabilities ?? [] };
    default:
      return state;
  }
}

function questionOf(frame: Question & { type: 'question' }): Question {
  const { type: _type, ...question } = frame;
  return question;
}

/** Fold many frames. */
export function applyFrames(state: ViewState, frames: Iterable<ChatFrame>): ViewState {
  let next = state;
  for (const frame of frames) {
    next = applyFrame(next, frame);
  }
  return next;
}

/** The text of the last user message (what "retry" sends again), or null. */
export function lastUserText(state: ViewState): string | null {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i];
    if (message.role === 'user') {
      return firstText(message.parts);
    }
  }
  return null;
}

/** The id of the kernel the agent's IPython tool last ran in (from its result details), or null. */
export function latestKernelId(state: ViewState): string | null {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const parts = state.messages[i].parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const part = parts[j];
      const kernelId = isToolPart(part) ? part.output?.details?.kernelId : undefined;
      if (typeof kernelId === 'string') {
        return kernelId;
      }
    }
  }
  return null;
}

/** The pending question asked by tool call `toolCallId`, if any. */
export function questionFor(state: ViewState, toolCallId: string): Question | null {
  return state.questions.find(q => q.toolCallId === toolCallId) ?? null;
}
