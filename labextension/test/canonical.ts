/**
 * The canonical JSON form of the panel's view state, key for key the form the Python fold writes
 * (`prime_jupyter/protocol/view/canonical.py`, whose docstring draws it): camelCase keys, every field
 * present, a key the wire may leave out written as its default. The golden view files
 * (`tests/golden/<name>.view.json`) are in this form, so one file checks both folds.
 */
import type { ImageContent, Question, TextContent, Usage } from '../src/protocol';
import type { MessageView, Notice, PartView, ViewState } from '../src/model';
import { isReasoningPart, isTextPart, isToolPart } from '../src/wire';

/** A JSON value, as `JSON.parse` gives it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The canonical JSON form of `state`. */
export function viewToJSON(state: ViewState): { [key: string]: Json } {
  return {
    sessionId: state.sessionId,
    name: state.name,
    runId: state.runId,
    messages: state.messages.map(messageJSON),
    steering: [...state.steering],
    followUp: [...state.followUp],
    questions: state.questions.map(questionJSON),
    notices: state.notices.map(noticeJSON),
    statuses: { ...state.statuses },
    widgets: Object.fromEntries(Object.entries(state.widgets).map(([key, lines]) => [key, [...lines]])),
    usage: usageJSON(state.usage),
    contextTokens: state.contextTokens,
    contextWindow: state.contextWindow,
    model: state.model ? { provider: state.model.provider, id: state.model.id } : null,
    thinkingLevel: state.thinkingLevel,
    capabilities: [...state.capabilities],
    resync: state.resync,
    notified: state.notified
  };
}

function messageJSON(message: MessageView): Json {
  return {
    key: message.key,
    id: message.id,
    role: message.role,
    parts: message.parts.map(partJSON),
    createdAt: message.createdAt,
    stopReason: message.stopReason ?? null,
    model: message.model,
    streaming: message.streaming,
    pending: message.pending,
    usage: usageJSON(message.usage)
  };
}

function partJSON(part: PartView): Json {
  if (isToolPart(part)) {
    const output = part.output ?? null;
    return {
      type: part.type,
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      state: part.state,
      input: (part.input ?? {}) as Json,
      output: output ? { content: (output.content ?? []).map(blockJSON), details: (output.details ?? null) as Json } : null,
      errorText: part.errorText ?? null,
      draft: part.draft ?? null
    };
  }
  if (isTextPart(part)) {
    return { type: 'text', text: part.text };
  }
  if (isReasoningPart(part)) {
    return { type: 'reasoning', text: part.text, redacted: part.redacted ?? false };
  }
  if (part.type === 'image') {
    return { type: 'image', mimeType: part.mimeType, data: part.data };
  }
  return { type: 'error', message: part.message, title: part.title ?? null };
}

function blockJSON(block: TextContent | ImageContent): Json {
  return block.type === 'text'
    ? { type: 'text', text: block.text }
    : { type: 'image', mimeType: block.mimeType, data: block.data };
}

function usageJSON(usage: Usage | null): Json {
  if (!usage) {
    return null;
  }
  const cost = usage.cost ?? {};
  return {
    input: usage.input ?? 0,
    output: usage.output ?? 0,
    cacheRead: usage.cacheRead ?? 0,
    cacheWrite: usage.cacheWrite ?? 0,
    totalTokens: usage.totalTokens ?? 0,
    cost: {
      input: cost.input ?? 0,
      output: cost.output ?? 0,
      cacheRead: cost.cacheRead ?? 0,
      cacheWrite: cost.cacheWrite ?? 0,
      total: cost.total ?? 0
    }
  };
}

function questionJSON(question: Question): Json {
  return {
    id: question.id,
    kind: question.kind,
    title: question.title,
    message: question.message ?? null,
    options: (question.options ?? []).map(o => ({ id: o.id, label: o.label, description: o.description ?? null })),
    multiple: question.multiple ?? false,
    placeholder: question.placeholder ?? null,
    default: question.default ?? null,
    timeoutMs: question.timeoutMs,
    expiresAt: question.expiresAt,
    toolCallId: question.toolCallId ?? null
  };
}

function noticeJSON(notice: Notice): Json {
  return { key: notice.key, level: notice.level, text: notice.text, action: notice.action };
}
