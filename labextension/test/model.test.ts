/** The model's fold on hand-written frames: the cases the golden streams do not cover. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import {
  MAX_NOTIFY,
  fromSession,
  ViewState,
  addLocalMessage,
  applyFrames,
  emptyState,
  isRunning,
  lastUserText,
  latestKernelId,
  nothingSent,
  questionFor,
  refuseLocal,
  takeFailed
} from '../src/model';
import type { ChatFrame, ChatMessage, ChatSessionResponse } from '../src/protocol';

const SESSION = 's1';
const user = (id: string, text: string): ChatMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

function run(state: ViewState, ...frames: ChatFrame[]): ViewState {
  return applyFrames(state, frames);
}

test('the optimistic copy of a sent message is replaced, not doubled, when the server confirms it', () => {
  const sent = addLocalMessage(emptyState(SESSION), 'local-1', 'hello', 1);
  const state = run(
    sent,
    { type: 'start', runId: 'r1', sessionId: SESSION },
    { type: 'message-end', messageId: 'e1', message: user('e1', 'hello') }
  );
  assert.deepEqual(state.messages.map(m => [m.id, m.pending, m.key]), [['e1', false, 'local-1']]);
});

test('a message that could not start a run stays, failed, with the reason as a notice (issue 17)', () => {
  const sent = addLocalMessage(emptyState(SESSION), 'local-1', 'hello', 1);
  const refused = refuseLocal(sent, "no API key for provider 'anthropic': set ANTHROPIC_API_KEY");
  assert.deepEqual(refused.messages.map(m => [m.key, m.pending, m.failed]), [['local-1', false, true]]);
  assert.equal(refused.notices[0].text, "no API key for provider 'anthropic': set ANTHROPIC_API_KEY");
  assert.ok(nothingSent(refused));
  const [after, text] = takeFailed(refused, 'local-1');
  assert.equal(text, 'hello');
  assert.deepEqual([after.messages, after.notices], [[], []]);
});

test('a session with a confirmed message is not one where nothing was sent', () => {
  const state = run(emptyState(SESSION), { type: 'message-end', messageId: 'e1', message: user('e1', 'hi') });
  assert.equal(nothingSent(refuseLocal(addLocalMessage(state, 'local-2', 'again', 2), 'busy')), false);
});

test('a message sent by another client is appended', () => {
  const state = run(emptyState(SESSION), { type: 'message-end', messageId: 'e9', message: user('e9', 'from the TUI') });
  assert.deepEqual(state.messages.map(m => m.id), ['e9']);
});

test('the same message-end twice (a replayed frame) leaves one message', () => {
  const end: ChatFrame = { type: 'message-end', messageId: 'e1', message: user('e1', 'hi') };
  assert.equal(run(emptyState(SESSION), end, end).messages.length, 1);
});

test('a request that could not start drops the optimistic copy and offers a retry', () => {
  const sent = addLocalMessage(emptyState(SESSION), 'local-1', 'hello', 1);
  const state = run(sent, { type: 'error', message: 'No API key for anthropic', reason: 'no-api-key' });
  assert.deepEqual(state.messages, []);
  assert.deepEqual(state.notices.map(n => [n.level, n.action]), [['error', 'retry']]);
});

test('start and done bracket a run, and done empties the queue', () => {
  const started = run(
    emptyState(SESSION),
    { type: 'start', runId: 'r1', sessionId: SESSION },
    { type: 'queue', steering: ['faster'], followUp: ['then plot'] }
  );
  assert.equal(isRunning(started), true);
  assert.deepEqual([started.steering, started.followUp], [['faster'], ['then plot']]);
  const done = run(started, { type: 'done', runId: 'r1', sessionId: SESSION, stopReason: 'stop' });
  assert.equal(isRunning(done), false);
  assert.deepEqual([done.steering, done.followUp], [[], []]);
});

test('questions are listed until resolved, and found by their tool call', () => {
  const asked = run(emptyState(SESSION), {
    type: 'question',
    id: 'q1',
    kind: 'confirm',
    title: 'Overwrite data.csv?',
    timeoutMs: 60000,
    expiresAt: 1760000060000,
    toolCallId: 'call-1'
  });
  assert.equal(questionFor(asked, 'call-1')?.title, 'Overwrite data.csv?');
  const again = run(asked, { type: 'question', id: 'q1', kind: 'confirm', title: 'x', timeoutMs: 1, expiresAt: 1 });
  assert.equal(again.questions.length, 1);
  const resolved = run(again, { type: 'question-resolved', id: 'q1', cancelled: 'timeout' });
  assert.deepEqual(resolved.questions, []);
});

test('status and widget frames set and clear their keys', () => {
  const set = run(
    emptyState(SESSION),
    { type: 'status', key: 'git', text: 'on main' },
    { type: 'widget', key: 'todo', lines: ['- [ ] plot'] }
  );
  assert.deepEqual([set.statuses, set.widgets], [{ git: 'on main' }, { todo: ['- [ ] plot'] }]);
  const cleared = run(set, { type: 'status', key: 'git' }, { type: 'widget', key: 'todo', lines: null });
  assert.deepEqual([cleared.statuses, cleared.widgets], [{}, {}]);
});

test(`only the last ${MAX_NOTIFY} notifications are kept, newest last`, () => {
  const frames: ChatFrame[] = Array.from({ length: 8 }, (_, i) => ({ type: 'notify', message: `n${i}` }));
  const state = run(emptyState(SESSION), ...frames);
  assert.deepEqual(state.notices.map(n => n.text), ['n3', 'n4', 'n5', 'n6', 'n7']);
});

test('compaction start and end share one notice', () => {
  const state = run(
    emptyState(SESSION),
    { type: 'compaction', phase: 'start', reason: 'threshold' },
    { type: 'compaction', phase: 'end', reason: 'threshold', tokensBefore: 150000 }
  );
  assert.deepEqual(state.notices.map(n => n.text), ['Context compacted (150000 tokens before).']);
});

test('resync-required is recorded for the owner to act on, and a new run clears it', () => {
  const state = run(emptyState(SESSION), { type: 'resync-required', reason: 'history-changed' });
  assert.equal(state.resync, 'history-changed');
  assert.equal(run(state, { type: 'start', runId: 'r2', sessionId: SESSION }).resync, null);
});

test('session-info, model and thinking-level frames update the header state', () => {
  const state = run(
    emptyState(SESSION),
    { type: 'session-info', name: 'Sales analysis' },
    { type: 'model', provider: 'scripted', id: 'm1', contextWindow: 32000 },
    { type: 'thinking-level', level: 'high' }
  );
  assert.deepEqual([state.name, state.model, state.thinkingLevel, state.contextWindow], [
    'Sales analysis',
    { provider: 'scripted', id: 'm1' },
    'high',
    32000
  ]);
});

test('a tool frame for a call that is nowhere yet becomes a message of its own', () => {
  const state = run(emptyState(SESSION), {
    type: 'tool',
    messageId: 'm7',
    part: { type: 'tool-Bash', toolCallId: 'c7', toolName: 'bash', state: 'input-available', input: { command: 'ls' } }
  });
  assert.deepEqual(state.messages.map(m => [m.id, m.parts.length]), [['m7', 1]]);
});

test('the kernel id comes from the newest IPython result, and retry resends the last user text', () => {
  const state = run(
    addLocalMessage(emptyState(SESSION), 'l1', 'plot it', 1),
    {
      type: 'tool',
      messageId: 'm1',
      part: {
        type: 'tool-IPython',
        toolCallId: 'c1',
        toolName: 'ipython',
        state: 'output-available',
        output: { content: [], details: { kernelId: 'k-123' } }
      }
    }
  );
  assert.equal(latestKernelId(state), 'k-123');
  assert.equal(lastUserText(state), 'plot it');
});

test('unchanged messages keep their identity when another one streams', () => {
  const before = run(
    emptyState(SESSION),
    { type: 'message-end', messageId: 'e1', message: user('e1', 'hi') },
    { type: 'message-start', messageId: 'live', role: 'assistant' }
  );
  const after = run(before, { type: 'text-delta', messageId: 'live', index: 0, delta: 'Hel' });
  assert.equal(after.messages[0], before.messages[0]);
  assert.notEqual(after.messages[1], before.messages[1]);
});

function hydration(messages: ChatMessage[], live: ChatMessage | null): ChatSessionResponse {
  return {
    session: { sessionId: SESSION, title: 't', cwd: '/', createdAt: 0, updatedAt: 0, status: 'running' },
    messages,
    live: live ? { runId: 'r1', message: live } : null
  };
}

test('a resync keeps the render keys of the sent message and of the answer whose id changed', () => {
  const before = run(
    addLocalMessage(emptyState(SESSION), 'local-1', 'hello', 1),
    { type: 'start', runId: 'r1', sessionId: SESSION },
    { type: 'message-start', messageId: 'live-1', role: 'assistant' },
    { type: 'text-delta', messageId: 'live-1', index: 0, delta: 'Hi' }
  );
  const answer: ChatMessage = { id: 'e2', role: 'assistant', parts: [{ type: 'text', text: 'Hi there' }] };
  const after = fromSession(hydration([user('e1', 'hello'), answer], null), before);
  assert.deepEqual(after.messages.map(m => [m.id, m.key]), [['e1', 'local-1'], ['e2', 'live-1']]);
});

test('a hydration of another session takes no keys from the previous one', () => {
  const before = addLocalMessage(emptyState('other'), 'local-1', 'hello', 1);
  const after = fromSession(hydration([user('e1', 'hello')], null), before);
  assert.deepEqual(after.messages.map(m => m.key), ['e1']);
});

test('a hydration taken mid-run marks the live message as streaming and the run as going on', () => {
  const live: ChatMessage = { id: 'live-1', role: 'assistant', parts: [{ type: 'text', text: 'Hal' }] };
  const state = fromSession(hydration([user('e1', 'q'), live], live));
  assert.deepEqual(state.messages.map(m => m.streaming), [false, true]);
  assert.equal(isRunning(state), true);
});
