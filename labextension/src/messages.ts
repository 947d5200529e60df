/**
 * The message list of the view state and the pure operations that frames perform on it.
 *
 * Messages are immutable: an operation returns a new list in which only the touched message (and
 * the touched part) are new objects, so the widgets re-render exactly what changed by comparing
 * identities. Every message has a `key` that never changes for the message's lifetime, although its
 * `id` does once (the live id of a streaming assistant message becomes its transcript entry id at
 * `message-end`): the widget of a finished answer is reused, not rebuilt.
 */
import type { ChatMessage, ToolPart, Usage } from './protocol';
import { ChatPart, firstText, isReasoningPart, isTextPart, isToolPart, partsOf } from './wire';

/** A tool part, plus the raw argument JSON typed so far while the model is still writing it. */
export interface ToolView extends ToolPart {
  readonly draft?: string;
}

/** A part as the view holds it. */
export type PartView = Exclude<ChatPart, ToolPart> | ToolView;

/** One message of the conversation as the panel shows it. */
export interface MessageView {
  /** Stable render key: the first id the message had. */
  readonly key: string;
  /** Transcript entry id, or a live id while it streams, or a local id while unconfirmed. */
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly parts: readonly PartView[];
  readonly createdAt: number | null;
  readonly stopReason: ChatMessage['stopReason'] | null;
  readonly model: string | null;
  /** Deltas are still arriving. */
  readonly streaming: boolean;
  /** An optimistic copy of a message this client sent, not yet confirmed by the server. */
  readonly pending: boolean;
  /** A message this client sent that could not start a run (kept, to retry or edit). */
  readonly failed?: boolean;
  readonly usage: Usage | null;
}

/** The view of a wire message; `key` defaults to its id. */
export function messageView(message: ChatMessage, key: string = message.id): MessageView {
  return {
    key,
    id: message.id,
    role: message.role,
    parts: partsOf(message),
    createdAt: message.createdAt ?? null,
    stopReason: message.stopReason ?? null,
    model: message.model ?? null,
    streaming: false,
    pending: false,
    usage: null
  };
}

/** Index of the message with `id`, searching from the end (where frames almost always land). */
export function findMessage(messages: readonly MessageView[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].id === id) {
      return i;
    }
  }
  return -1;
}

/** `messages` with the message at `index` replaced. */
export function replaceAt(
  messages: readonly MessageView[],
  index: number,
  message: MessageView
): MessageView[] {
  const copy = messages.slice();
  copy[index] = message;
  return copy;
}

/** An empty streaming assistant message. */
export function streamingMessage(id: string, createdAt: number | null): MessageView {
  return { ...messageView({ id, role: 'assistant', parts: [] }), createdAt, streaming: true };
}

/** The message with `id`, created (streaming, at the end) when it is not there yet. */
function ensureMessage(messages: readonly MessageView[], id: string): [MessageView[], number] {
  const index = findMessage(messages, id);
  if (index >= 0) {
    return [messages.slice(), index];
  }
  return [[...messages, streamingMessage(id, null)], messages.length];
}

/** `parts` with `part` at `index` (appended when `index` is past the end or absent). */
function setPart(parts: readonly PartView[], index: number | null | undefined, part: PartView): PartView[] {
  const copy = parts.slice();
  if (index === null || index === undefined || index >= copy.length || index < 0) {
    copy.push(part);
  } else {
    copy[index] = part;
  }
  return copy;
}

type TextLike = 'text' | 'reasoning';

/** Append a text or reasoning delta to the part at `index` of message `id`. */
export function appendDelta(
  messages: readonly MessageView[],
  id: string,
  index: number,
  kind: TextLike,
  delta: string
): MessageView[] {
  const [copy, at] = ensureMessage(messages, id);
  const message = copy[at];
  const current = message.parts[index];
  let part: PartView;
  if (kind === 'text') {
    part = current && isTextPart(current) ? { ...current, text: current.text + delta } : { type: 'text', text: delta };
  } else {
    part =
      current && isReasoningPart(current)
        ? { ...current, text: current.text + delta }
        : { type: 'reasoning', text: delta };
  }
  copy[at] = { ...message, parts: setPart(message.parts, index, part) };
  return copy;
}

/** Append a chunk of argument JSON to the tool part `toolCallId` of message `id`. */
export function appendToolInput(
  messages: readonly MessageView[],
  id: string,
  index: number,
  toolCallId: string,
  delta: string
): MessageView[] {
  const at = findMessage(messages, id);
  if (at < 0) {
    return messages.slice();
  }
  const message = messages[at];
  const partIndex = message.parts.findIndex(p => isToolPart(p) && p.toolCallId === toolCallId);
  const slot = partIndex >= 0 ? partIndex : index;
  const current = message.parts[slot];
  if (current === undefined || !isToolPart(current)) {
    return messages.slice();
  }
  const tool: ToolView = { ...current, draft: (current.draft ?? '') + delta };
  return replaceAt(messages, at, { ...message, parts: setPart(message.parts, slot, tool) });
}

/** Where the tool part `toolCallId` is: [message index, part index], or null. */
function findTool(messages: readonly MessageView[], toolCallId: string): [number, number] | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const j = messages[i].parts.findIndex(p => isToolPart(p) && p.toolCallId === toolCallId);
    if (j >= 0) {
      return [i, j];
    }
  }
  return null;
}

/**
 * Put the whole current state of a tool part in place: merged by `toolCallId` (in message `id`, else
 * anywhere), else at `index` of message `id`, else as a message of its own. The draft survives only
 * while the arguments are still streaming.
 */
export function upsertTool(
  messages: readonly MessageView[],
  id: string,
  index: number | null | undefined,
  part: ToolPart
): MessageView[] {
  const found = findTool(messages, part.toolCallId);
  const at = found ? found[0] : findMessage(messages, id);
  if (at < 0) {
    return [...messages, { ...messageView({ id, role: 'assistant', parts: [part] }) }];
  }
  const message = messages[at];
  const previous = found ? message.parts[found[1]] : undefined;
  const draft = previous && isToolPart(previous) && part.state === 'input-streaming' ? previous.draft : undefined;
  const tool: ToolView = draft === undefined ? part : { ...part, draft };
  const slot = found ? found[1] : index;
  return replaceAt(messages, at, { ...message, parts: setPart(message.parts, slot, tool) });
}

/** Whether a user message carries `text` as its text. */
function hasText(message: MessageView, text: string): boolean {
  return message.parts.some(p => isTextPart(p) && p.text === text);
}

/** The index a persisted user message replaces: itself, else its optimistic copy, else -1 (append). */
function userSlot(messages: readonly MessageView[], message: ChatMessage): number {
  const same = findMessage(messages, message.id);
  if (same >= 0) {
    return same;
  }
  const text = firstText(partsOf(message));
  const pending = messages.findIndex(m => m.pending && (text === null || hasText(m, text)));
  return pending >= 0 ? pending : messages.findIndex(m => m.pending);
}

/**
 * A message is final: replace the message `liveId` (or the one already under the final id, or the
 * optimistic copy of a user message) with it, keeping its render key; append it when it is new.
 */
export function endMessage(
  messages: readonly MessageView[],
  liveId: string,
  message: ChatMessage
): MessageView[] {
  let at = findMessage(messages, liveId);
  if (at < 0) {
    at = message.role === 'user' ? userSlot(messages, message) : findMessage(messages, message.id);
  }
  if (at < 0) {
    return [...messages, messageView(message)];
  }
  const old = messages[at];
  return replaceAt(messages, at, { ...messageView(message, old.key), usage: old.usage });
}

/** Attach a message's usage (the `usage` frame follows its `message-end`). */
export function setUsage(messages: readonly MessageView[], id: string, usage: Usage): MessageView[] {
  const at = findMessage(messages, id);
  return at < 0 ? messages.slice() : replaceAt(messages, at, { ...messages[at], usage });
}

/** Every message marked as no longer streaming (a run ended). */
export function stopStreaming(messages: readonly MessageView[]): readonly MessageView[] {
  if (!messages.some(m => m.streaming)) {
    return messages;
  }
  return messages.map(m => (m.streaming ? { ...m, streaming: false } : m));
}
