/**
 * Pure text helpers of the panel: token counts, cost, times, tool-argument drafts, markdown blocks, paths.
 * No DOM, no JupyterLab: unit-tested in node.
 */
import type { Question, Usage } from './protocol';

/** `950`, `1.5k`, `12k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) {
    return String(Math.round(n));
  }
  if (n < 10_000) {
    return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  }
  if (n < 1_000_000) {
    return `${Math.round(n / 1000)}k`;
  }
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** `$0.0054`, `$0.12`, `$3.40`. */
export function formatCost(dollars: number): string {
  if (dollars === 0) {
    return '$0';
  }
  return dollars < 0.1 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}

/** The footer line: input/output tokens, cost and how full the context is. */
export function usageLine(usage: Usage | null, contextTokens: number | null, contextWindow: number | null): string {
  const parts: string[] = [];
  if (usage) {
    parts.push(`↑${formatTokens(usage.input ?? 0)} ↓${formatTokens(usage.output ?? 0)}`);
    const cached = usage.cacheRead ?? 0;
    if (cached > 0) {
      parts.push(`cache ${formatTokens(cached)}`);
    }
    parts.push(formatCost(usage.cost?.total ?? 0));
  }
  if (contextTokens !== null) {
    const of = contextWindow ? `/${formatTokens(contextWindow)}` : '';
    const percent = contextWindow ? ` (${((100 * contextTokens) / contextWindow).toFixed(1)}%)` : '';
    parts.push(`context ${formatTokens(contextTokens)}${of}${percent}`);
  }
  return parts.join(' · ');
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`, else the date. */
export function relativeTime(thenMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (seconds < 60) {
    return 'just now';
  }
  if (seconds < 3600) {
    return `${Math.floor(seconds / 60)} min ago`;
  }
  if (seconds < 86_400) {
    return `${Math.floor(seconds / 3600)} h ago`;
  }
  if (seconds < 7 * 86_400) {
    return `${Math.floor(seconds / 86_400)} d ago`;
  }
  return new Date(thenMs).toISOString().slice(0, 10);
}

/**
 * What a question says of its time limit: `42 s left`; a question without one (`timeoutMs` 0, as an
 * approval is: it never times out into "yes") waits for its answer and says so.
 */
export function timeLeft(question: Pick<Question, 'timeoutMs' | 'expiresAt'>, nowMs: number): string {
  return question.timeoutMs > 0 ? `${remaining(question.expiresAt, nowMs)} left` : 'waiting for your answer';
}

/** Seconds left until `expiresAt` (never negative), as `42 s` or `2 min 5 s`. */
export function remaining(expiresAtMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.ceil((expiresAtMs - nowMs) / 1000));
  if (seconds < 60) {
    return `${seconds} s`;
  }
  const rest = seconds % 60;
  return rest ? `${Math.floor(seconds / 60)} min ${rest} s` : `${Math.floor(seconds / 60)} min`;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };

/**
 * The value of the string field `key` in JSON that the model is still writing (`{"code": "import m`),
 * as far as it goes; null when the field has not started. Lets a tool card show code as it is typed.
 */
export function partialJsonString(draft: string, key: string): string | null {
  const match = new RegExp(`"${key}"\\s*:\\s*"`).exec(draft);
  if (!match) {
    return null;
  }
  let out = '';
  for (let i = match.index + match[0].length; i < draft.length; i++) {
    const c = draft[i];
    if (c === '"') {
      break;
    }
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = draft[i + 1];
    if (next === undefined) {
      break;
    }
    if (next === 'u') {
      const hex = draft.slice(i + 2, i + 6);
      if (hex.length < 4) {
        break;
      }
      out += String.fromCharCode(parseInt(hex, 16));
      i += 5;
    } else {
      out += ESCAPES[next] ?? next;
      i += 1;
    }
  }
  return out;
}

/** Markdown blocks and where each starts in the text. */
export interface IBlocks {
  readonly blocks: string[];
  readonly starts: number[];
}

/**
 * Split markdown into blocks at blank lines that are outside fenced code and `$$` math, so that a
 * long answer can be rendered block by block: finished blocks are rendered once, only the last one
 * again as deltas arrive. Joining the blocks with blank lines gives back the text's rendering.
 *
 * `from` must be the start of a block (every block starts outside code and math): a text that only
 * grew is split again from its last block on, not from the beginning.
 */
export function splitBlocks(text: string, from = 0): IBlocks {
  const blocks: string[] = [];
  const starts: number[] = [];
  let current: string[] = [];
  let start = from;
  let fence: string | null = null;
  let math = false;
  let offset = from;
  for (const line of text.slice(from).split('\n')) {
    const trimmed = line.trimStart();
    const marker = /^(`{3,}|~{3,})/.exec(trimmed);
    if (marker && (fence === null || trimmed.startsWith(fence))) {
      fence = fence === null ? marker[1] : null;
    } else if (fence === null && trimmed.startsWith('$$')) {
      math = trimmed === '$$' || !trimmed.slice(2).includes('$$') ? !math : math;
    }
    if (line.trim() === '' && fence === null && !math) {
      if (current.length > 0) {
        blocks.push(current.join('\n'));
        starts.push(start);
        current = [];
      }
    } else {
      if (current.length === 0) {
        start = offset;
      }
      current.push(line);
    }
    offset += line.length + 1;
  }
  if (current.length > 0) {
    blocks.push(current.join('\n'));
    starts.push(start);
  }
  return { blocks, starts };
}

/** The blocks of `text` (see `splitBlocks`). */
export function markdownBlocks(text: string): string[] {
  return splitBlocks(text).blocks;
}

/**
 * The blocks of `text`, reusing `previous` (the split of `before`) when `text` is `before` plus more:
 * only the last block of `before` and what follows are split again.
 */
export function growBlocks(before: string, previous: IBlocks, text: string): IBlocks {
  const last = previous.starts.length - 1;
  const from = last >= 0 ? previous.starts[last] : 0;
  if (last < 0 || text.length < before.length || text.slice(from, before.length) !== before.slice(from)) {
    return splitBlocks(text);
  }
  const tail = splitBlocks(text, from);
  return {
    blocks: [...previous.blocks.slice(0, last), ...tail.blocks],
    starts: [...previous.starts.slice(0, last), ...tail.starts]
  };
}

/**
 * `path` (absolute, as the server wrote it) relative to the server's root `root`, as Lab's documents
 * are named; null when it lies outside the root (Lab cannot open it then).
 */
export function underRoot(path: string, root: string): string | null {
  const base = root.replace(/\/+$/, '');
  if (!base || !path.startsWith(`${base}/`)) {
    return null;
  }
  return path.slice(base.length + 1);
}
