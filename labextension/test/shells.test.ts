/** The fold of `shell` frames: a command's output grows while it runs, its end says how it ended. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import type { ChatFrame } from '../src/protocol';
import { LIVE_CHARS, applyShellFrames, runsOnLoad, stillRunning } from '../src/shells';

const start: ChatFrame = { type: 'shell', phase: 'start', executionId: 'x1', command: 'pytest', includeInContext: false };
const out = (chunk: string, skipped?: number): ChatFrame => ({ type: 'shell', phase: 'output', executionId: 'x1', chunk, skipped });

test('a running command shows its output as the chunks arrive, and its end replaces it with what was kept', () => {
  const running = applyShellFrames([], [start, out('collected 2 items\n'), out('..\n')]);
  assert.deepEqual(
    running.map(r => [r.command, r.includeInContext, r.output, r.end]),
    [['pytest', false, 'collected 2 items\n..\n', null]]
  );
  const ended = applyShellFrames(running, [
    { type: 'shell', phase: 'end', executionId: 'x1', command: 'pytest', output: '2 passed', exitCode: 1, entryId: 'e9' }
  ]);
  assert.equal(ended[0].output, '2 passed');
  assert.deepEqual(ended[0].end, { exitCode: 1, cancelled: false, truncated: false, fullOutputPath: null, error: null });
  assert.deepEqual(stillRunning(ended), []);
  assert.equal(stillRunning(running), running);
});

test('a flood keeps only the end of the output and says so', () => {
  const runs = applyShellFrames([], [start, out('x'.repeat(LIVE_CHARS)), out('the end', 10)]);
  assert.equal(runs[0].output.length, LIVE_CHARS);
  assert.ok(runs[0].output.endsWith('the end') && runs[0].cut);
});

test('output of a command this stream did not see start is skipped; its end still shows it', () => {
  assert.deepEqual(applyShellFrames([], [out('lost')]), []);
  const runs = applyShellFrames([], [{ type: 'shell', phase: 'end', executionId: 'x2', command: 'ls', output: 'a', cancelled: true }]);
  assert.deepEqual(runs.map(r => [r.command, r.output, r.end?.cancelled]), [['ls', 'a', true]]);
});

test('other frames leave the commands as they were', () => {
  const runs = applyShellFrames([], [start]);
  assert.equal(applyShellFrames(runs, [{ type: 'queue', steering: [], followUp: [] }]), runs);
});

test('a session loaded while a command runs shows it with its output so far, and its frames go on from there', () => {
  const loaded = runsOnLoad([], [{ executionId: 'x1', command: 'pytest', includeInContext: false, output: 'collected', skipped: 3 }]);
  assert.deepEqual(loaded.map(r => [r.command, r.includeInContext, r.output, r.cut, r.end]), [['pytest', false, 'collected', true, null]]);
  assert.equal(applyShellFrames(loaded, [out(' 2 items\n')])[0].output, 'collected 2 items\n');
  const watched = applyShellFrames([], [start, out('old')]);
  assert.deepEqual(runsOnLoad(watched, []), []); // the server says none runs: it ended meanwhile
});

test('a server that does not say what runs (before revision 8) leaves the watched commands still running', () => {
  const watched = applyShellFrames([], [start, out('so far')]);
  assert.equal(runsOnLoad(watched, undefined), watched);
});
