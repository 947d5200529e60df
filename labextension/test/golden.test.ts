/**
 * The model against the golden NDJSON streams in tests/golden/, the same files the Python tests parse
 * (tests/golden/test_golden.py): what the server's event mapper writes is what the panel folds.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ViewState, applyFrames, coalesce, emptyState, fromSession, isRunning } from '../src/model';
import type { ChatFrame, ChatMessage, ChatSessionResponse, ToolPart } from '../src/protocol';
import { LineDecoder, firstText, isToolPart, parseFrame } from '../src/wire';
import { partialJsonString } from '../src/format';

const GOLDEN = join(__dirname, '..', '..', '..', '..', 'tests', 'golden');

function lines(text: string, chunk = text.length): string[] {
  const decoder = new LineDecoder();
  const out: string[] = [];
  for (let i = 0; i < text.length; i += chunk) {
    out.push(...decoder.feed(text.slice(i, i + chunk)));
  }
  return [...out, ...decoder.close()];
}

function golden(name: string): ChatFrame[] {
  const text = readFileSync(join(GOLDEN, `${name}.ndjson`), 'utf8');
  return lines(text).map(line => {
    const frame = parseFrame(line);
    assert.ok(frame, `unknown frame in ${name}: ${line}`);
    return frame;
  });
}

function fold(frames: ChatFrame[]): ViewState {
  return applyFrames(emptyState(), frames);
}

/** The final messages the stream announced, each with the last state its tool parts reached. */
function announced(frames: ChatFrame[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const tools = new Map<string, ToolPart>();
  for (const frame of frames) {
    if (frame.type === 'message-end') {
      messages.push(frame.message);
    } else if (frame.type === 'tool') {
      tools.set(frame.part.toolCallId, frame.part);
    }
  }
  return messages.map(m => ({
    ...m,
    parts: (m.parts ?? []).map(p => (isToolPart(p) ? tools.get(p.toolCallId) ?? p : p))
  }));
}

function plain(state: ViewState): ChatMessage[] {
  return state.messages.map(m => {
    const message: ChatMessage = { id: m.id, role: m.role, parts: [...m.parts] };
    if (m.createdAt !== null) message.createdAt = m.createdAt;
    if (m.stopReason) message.stopReason = m.stopReason;
    if (m.model) message.model = m.model;
    return message;
  });
}

function strip(messages: ChatMessage[]): ChatMessage[] {
  return messages.map(({ provider: _provider, ...rest }) => rest);
}

const NAMES = readdirSync(GOLDEN)
  .filter(f => f.endsWith('.ndjson'))
  .map(f => f.replace(/\.ndjson$/, ''));

test('there are golden streams to read', () => {
  assert.ok(NAMES.length >= 4, `found ${NAMES.join(', ')} in ${GOLDEN}`);
});

for (const name of NAMES) {
  test(`${name}: every line is a known frame, one run from start to done`, () => {
    const frames = golden(name);
    assert.equal(frames[0].type, 'start');
    assert.equal(frames[frames.length - 1].type, 'done');
  });

  test(`${name}: folding the stream gives exactly the messages it ended with`, () => {
    const frames = golden(name);
    assert.deepEqual(plain(fold(frames)), strip(announced(frames)));
  });

  test(`${name}: the run is over after done, nothing streams`, () => {
    const state = fold(golden(name));
    assert.equal(isRunning(state), false);
    assert.ok(state.messages.every(m => !m.streaming && !m.pending));
  });

  test(`${name}: merged deltas fold to the same state`, () => {
    const frames = golden(name);
    assert.deepEqual(plain(applyFrames(emptyState(), coalesce(frames))), plain(fold(frames)));
  });

  test(`${name}: bytes split anywhere decode to the same frames`, () => {
    const text = readFileSync(join(GOLDEN, `${name}.ndjson`), 'utf8');
    assert.deepEqual(lines(text, 7), lines(text));
  });
}

test('text_answer: U+2028 inside a delta stays inside the text', () => {
  const state = fold(golden('text_answer'));
  assert.ok(firstText(state.messages[1].parts)?.includes('\u2028'));
});

test('text_answer: reasoning and text keep their order', () => {
  const state = fold(golden('text_answer'));
  assert.deepEqual(
    state.messages[1].parts.map(p => p.type),
    ['reasoning', 'text']
  );
});

test('text_answer: the streaming message keeps its render key when it gets its entry id', () => {
  const frames = golden('text_answer');
  const live = fold(frames.slice(0, 5));
  const done = fold(frames);
  assert.equal(live.messages[1].id, 'run-0001-m1');
  assert.equal(done.messages[1].id, 'b2c3d4e5');
  assert.equal(done.messages[1].key, live.messages[1].key);
});

test('text_answer: usage totals reach the footer', () => {
  const state = fold(golden('text_answer'));
  assert.equal(state.usage?.totalTokens, 2040);
  assert.equal(state.contextWindow, 200000);
  assert.equal(state.messages[1].usage?.output, 40);
});

test('text_answer: a hydration taken mid-run, then the frames after its cursor, equals watching live', () => {
  const frames = golden('text_answer');
  const cut = frames.findIndex(f => f.type === 'text-delta');
  const seen = fold(frames.slice(0, cut));
  const liveMessage = seen.messages[1];
  const response: ChatSessionResponse = {
    session: {
      sessionId: '0198c0de-0000-7000-8000-000000000001',
      title: 'What is a Jupyter kernel?',
      cwd: '/tmp',
      createdAt: 1760000000000,
      updatedAt: 1760000000010,
      status: 'running'
    },
    messages: [plain(seen)[0], { id: liveMessage.id, role: 'assistant', parts: [...liveMessage.parts] }],
    cursor: cut,
    live: { runId: 'run-0001', message: { id: liveMessage.id, role: 'assistant', parts: [...liveMessage.parts] } }
  };
  const resumed = fromSession(response);
  assert.equal(isRunning(resumed), true);
  const final = applyFrames(resumed, frames.slice(cut));
  assert.deepEqual(plain(final).map(m => m.parts), plain(fold(frames)).map(m => m.parts));
});

test('ipython_tool: the code shows while the model writes it', () => {
  const frames = golden('ipython_tool');
  const lastDelta = frames.map(f => f.type).lastIndexOf('tool-input-delta');
  const state = fold(frames.slice(0, lastDelta + 1));
  const tool = state.messages[1].parts[1];
  assert.ok(isToolPart(tool) && tool.draft !== undefined);
  assert.equal(partialJsonString(tool.draft, 'code'), 'import math\nprint(math.pi)\nmath.pi * 2');
});

test('ipython_tool: partial output while running, then the rich outputs', () => {
  const frames = golden('ipython_tool');
  const partial = frames.findIndex(f => f.type === 'tool' && f.part.output && f.part.state === 'input-available');
  const running = fold(frames.slice(0, partial + 1)).messages[1].parts[1];
  assert.ok(isToolPart(running) && running.state === 'input-available' && running.output);
  const final = fold(frames).messages[1].parts[1];
  assert.ok(isToolPart(final) && final.state === 'output-available');
  const outputs = final.output?.details?.outputs;
  assert.ok(Array.isArray(outputs) && outputs.length === 2);
});

test('retry: the retry notice shows while retrying and goes once it succeeded', () => {
  const frames = golden('retry');
  const start = frames.findIndex(f => f.type === 'retry');
  const during = fold(frames.slice(0, start + 1));
  assert.deepEqual(during.notices.map(n => n.key), ['retry']);
  assert.deepEqual(fold(frames).notices, []);
});

test('error: the failed answer carries its error part', () => {
  const state = fold(golden('error'));
  const last = state.messages[state.messages.length - 1];
  assert.equal(last.stopReason, 'error');
  assert.deepEqual(last.parts, [{ type: 'error', message: '401 invalid x-api-key' }]);
});

test('text_answer: consecutive deltas of a part merge, other frames stay', () => {
  const frames = golden('text_answer');
  const merged = coalesce(frames);
  assert.deepEqual(
    merged.map(f => f.type),
    ['start', 'message-end', 'message-start', 'reasoning-delta', 'text-delta', 'message-end', 'usage', 'done']
  );
});
