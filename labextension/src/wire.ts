/**
 * Small helpers over the generated wire types (`protocol.ts`): parsing one frame, merging runs of
 * deltas, narrowing parts, and splitting an NDJSON stream into lines. Pure: no DOM, no JupyterLab,
 * unit-tested in node.
 */
import type {
  ChatFrame,
  ChatMessage,
  ErrorPart,
  ImagePart,
  ReasoningPart,
  TextPart,
  ToolPart
} from './protocol';

/** The protocol version this panel speaks (`GET info` must answer the same). */
export const PROTOCOL_VERSION = 1;

/** One part of a chat message, as the wire carries it. */
export type ChatPart = TextPart | ReasoningPart | ImagePart | ErrorPart | ToolPart;

/** Every frame type this panel knows; frames of other types (a newer server's) are skipped. */
export const FRAME_TYPES: ReadonlySet<string> = new Set<ChatFrame['type']>([
  'start',
  'message-start',
  'text-delta',
  'reasoning-delta',
  'tool-input-delta',
  'tool',
  'message-end',
  'usage',
  'done',
  'error',
  'retry',
  'compaction',
  'shell',
  'queue',
  'question',
  'question-resolved',
  'notify',
  'status',
  'widget',
  'session-info',
  'model',
  'thinking-level',
  'resync-required',
  'connected'
]);

/**
 * One frame from its JSON text; null for a frame type this panel does not know (a newer server may
 * send those, and clients skip them). Throws on malformed JSON, like the Python `parse_frame`.
 */
export function parseFrame(line: string): ChatFrame | null {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || !('type' in value)) {
    return null;
  }
  const kind: unknown = value.type;
  return typeof kind === 'string' && FRAME_TYPES.has(kind) ? (value as ChatFrame) : null;
}

/** The key under which consecutive delta frames can be merged into one (null: not a delta). */
function deltaKey(frame: ChatFrame): string | null {
  switch (frame.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return `${frame.type}\n${frame.messageId}\n${frame.index}`;
    case 'tool-input-delta':
      return `${frame.type}\n${frame.messageId}\n${frame.index}\n${frame.toolCallId}`;
    default:
      return null;
  }
}

/**
 * `frames` with each run of deltas to the same part merged into one frame: folding the result gives
 * the same state as folding `frames`, in one step per run instead of one per delta.
 */
export function coalesce(frames: readonly ChatFrame[]): ChatFrame[] {
  const out: ChatFrame[] = [];
  let lastKey: string | null = null;
  for (const frame of frames) {
    const key = deltaKey(frame);
    const last = out[out.length - 1];
    if (key !== null && key === lastKey && last && 'delta' in last && 'delta' in frame) {
      out[out.length - 1] = { ...last, delta: last.delta + frame.delta } as ChatFrame;
    } else {
      out.push(frame);
    }
    lastKey = key;
  }
  return out;
}

/** Whether a part is a tool part (`tool-<Name>`): tool types are open-ended strings. */
export function isToolPart(part: ChatPart): part is ToolPart {
  return part.type.startsWith('tool-');
}

/** Whether a part is a text part (tool types are plain strings, so `type === 'text'` does not narrow). */
export function isTextPart(part: ChatPart): part is TextPart {
  return part.type === 'text';
}

/** Whether a part is a reasoning part. */
export function isReasoningPart(part: ChatPart): part is ReasoningPart {
  return part.type === 'reasoning';
}

/** The text of the first text part, or null. */
export function firstText(parts: readonly ChatPart[]): string | null {
  const part = parts.find(isTextPart);
  return part ? part.text : null;
}

/** The parts of a message (the wire may leave out an empty list). */
export function partsOf(message: ChatMessage): ChatPart[] {
  return message.parts ?? [];
}

/**
 * Splits a stream of text chunks into lines on `"\n"` only. `String.split('\n')` never splits on
 * U+2028 / U+2029, which are legal inside JSON strings (style rule 11).
 */
export class LineDecoder {
  private buffer = '';

  /** The complete lines in `chunk` (plus what was buffered), without their `"\n"`; empty ones dropped. */
  feed(chunk: string): string[] {
    const pieces = (this.buffer + chunk).split('\n');
    this.buffer = pieces.pop() ?? '';
    return pieces.filter(line => line.trim() !== '');
  }

  /** Whatever is left once the stream ended (a last line without its newline). */
  close(): string[] {
    const rest = this.buffer;
    this.buffer = '';
    return rest.trim() === '' ? [] : [rest];
  }
}

/** One message of an event stream: its data, and its `id:` when it had one. */
export interface ISseMessage {
  readonly data: string;
  readonly id: string | null;
}

/**
 * The event-stream format of the HTML spec, for our streams (as `prime_jupyter.protocol.framing.SseDecoder`
 * reads it): lines split on `"\n"` only (a trailing `"\r"` dropped), fields `id`, `data` (joined with
 * `"\n"` when repeated) and `retry`, comments skipped, a message at each blank line. An `id:` belongs
 * to its own message only (EventSource would carry the last one over to messages without).
 */
export class SseDecoder {
  /** The last `retry:` the stream sent: how long to wait before reconnecting (milliseconds). */
  retryMs: number | null = null;
  private buffer = '';
  private data: string[] = [];
  private id: string | null = null;

  /** The messages that `chunk` completed. */
  feed(chunk: string): ISseMessage[] {
    const lines = (this.buffer + chunk).split('\n');
    this.buffer = lines.pop() ?? '';
    const out: ISseMessage[] = [];
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        const message = this.dispatch();
        if (message) {
          out.push(message);
        }
      } else if (!line.startsWith(':')) {
        this.field(line);
      }
    }
    return out;
  }

  private field(line: string): void {
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (name === 'data') {
      this.data.push(value);
    } else if (name === 'id') {
      this.id = value;
    } else if (name === 'retry' && /^\d+$/.test(value)) {
      this.retryMs = Number(value);
    }
  }

  private dispatch(): ISseMessage | null {
    const message = this.data.length > 0 ? { data: this.data.join('\n'), id: this.id } : null;
    this.data = [];
    this.id = null;
    return message;
  }
}
