/** The pure text helpers: wire parsing, line splitting, numbers, times, drafts, markdown blocks. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import {
  growBlocks,
  splitBlocks,
  formatCost,
  formatTokens,
  markdownBlocks,
  partialJsonString,
  relativeTime,
  remaining,
  timeLeft,
  underRoot,
  usageLine
} from '../src/format';
import { LineDecoder, SseDecoder, parseFrame } from '../src/wire';

test('lines split on \\n only, never on U+2028 or U+2029', () => {
  const decoder = new LineDecoder();
  const got = [...decoder.feed('{"a":"x\u2028y"}\n{"b":"\u2029'), ...decoder.feed('"}\n'), ...decoder.close()];
  assert.deepEqual(got, ['{"a":"x\u2028y"}', '{"b":"\u2029"}']);
});

test('a last line without its newline comes out on close', () => {
  const decoder = new LineDecoder();
  assert.deepEqual(decoder.feed('{"type":"done"}'), []);
  assert.deepEqual(decoder.close(), ['{"type":"done"}']);
});

test('an event stream splits into messages at blank lines, however the chunks fall', () => {
  const stream = 'retry: 1000\ndata: {"type":"connected"}\n\n: heartbeat\n\nid: 7\ndata: {"a":"x\u2028y"}\n\nid: 8\r\ndata: one\r\ndata: two\r\n\r\n';
  const whole = new SseDecoder();
  const expected = [
    { data: '{"type":"connected"}', id: null },
    { data: '{"a":"x\u2028y"}', id: '7' },
    { data: 'one\ntwo', id: '8' }
  ];
  assert.deepEqual(whole.feed(stream), expected);
  assert.equal(whole.retryMs, 1000);
  for (let cut = 1; cut < stream.length; cut++) {
    const decoder = new SseDecoder();
    assert.deepEqual([...decoder.feed(stream.slice(0, cut)), ...decoder.feed(stream.slice(cut))], expected, `cut at ${cut}`);
  }
});

test('an id belongs to its own message, and a message without data is no message', () => {
  const decoder = new SseDecoder();
  assert.deepEqual(decoder.feed('id: 3\n\ndata:x\n\nretry: soon\nevent: ping\ndata\n\n'), [
    { data: 'x', id: null },
    { data: '', id: null }
  ]);
  assert.equal(decoder.retryMs, null);
});

test('frames of an unknown type are skipped, malformed JSON throws', () => {
  assert.equal(parseFrame('{"type":"hologram","x":1}'), null);
  assert.equal(parseFrame('{"type":"notify","message":"hi"}')?.type, 'notify');
  assert.throws(() => parseFrame('{"type":'));
});

test('token counts and cost read like a footer', () => {
  assert.deepEqual(
    [950, 1500, 12_400, 2_500_000].map(formatTokens),
    ['950', '1.5k', '12k', '2.5M']
  );
  assert.deepEqual([0, 0.0054, 3.4].map(formatCost), ['$0', '$0.0054', '$3.40']);
  const line = usageLine({ input: 1500, output: 60, cost: { total: 0.0054 } }, 1560, 200000);
  assert.equal(line, '↑1.5k ↓60 · $0.0054 · context 1.6k/200k (0.8%)');
});

test('times: relative for the session list, remaining for questions', () => {
  const now = 1_760_000_000_000;
  assert.equal(relativeTime(now - 5_000, now), 'just now');
  assert.equal(relativeTime(now - 5 * 60_000, now), '5 min ago');
  assert.equal(relativeTime(now - 3 * 3_600_000, now), '3 h ago');
  assert.equal(remaining(now + 41_200, now), '42 s');
  assert.equal(remaining(now + 125_000, now), '2 min 5 s');
  assert.equal(remaining(now - 1, now), '0 s');
  assert.equal(timeLeft({ timeoutMs: 60_000, expiresAt: now + 41_200 }, now), '42 s left');
  assert.equal(timeLeft({ timeoutMs: 0, expiresAt: now }, now), 'waiting for your answer'); // an approval
});

test('a string field of JSON still being written is read as far as it goes', () => {
  assert.equal(partialJsonString('{"co', 'code'), null);
  assert.equal(partialJsonString('{"code": "import m', 'code'), 'import m');
  assert.equal(partialJsonString('{"code":"a\\nb\\"c\\u00e9', 'code'), 'a\nb"cé');
  assert.equal(partialJsonString('{"code":"x\\', 'code'), 'x');
  assert.equal(partialJsonString('{"code":"done","other":"no"}', 'code'), 'done');
});

test('markdown splits at blank lines, but never inside fenced code or $$ math', () => {
  const text = 'Intro\n\n```python\na = 1\n\nb = 2\n```\n\n$$\nx\n\ny\n$$\n\nEnd';
  assert.deepEqual(markdownBlocks(text), ['Intro', '```python\na = 1\n\nb = 2\n```', '$$\nx\n\ny\n$$', 'End']);
  assert.deepEqual(markdownBlocks('\n\none\n\n\ntwo\n'), ['one', 'two']);
  assert.deepEqual(markdownBlocks('open ```\n\n~~~\ncode\n\nmore'), ['open ```', '~~~\ncode\n\nmore']);
});

test('blocks know where they start, and a split from a block start gives the same tail', () => {
  const text = 'one\n\n```\na\n\nb\n```\n\n\nthree';
  const { blocks, starts } = splitBlocks(text);
  assert.deepEqual(blocks.map((b, i) => text.slice(starts[i], starts[i] + b.length)), blocks);
  assert.deepEqual(splitBlocks(text, starts[1]).blocks, blocks.slice(1));
});

test('growing a text delta by delta gives the blocks of splitting it whole', () => {
  const text = 'Intro line\n\n- a\n- b\n\n```python\nx = 1\n\ny = 2\n```\n\n$$\nz\n\nw\n$$\n\nEnd.\n\n';
  let before = '';
  let split = splitBlocks('');
  for (let i = 1; i <= text.length; i += 3) {
    const now = text.slice(0, i);
    split = growBlocks(before, split, now);
    before = now;
    assert.deepEqual(split, splitBlocks(now), `after ${i} characters`);
  }
});

test('a text that did not just grow is split from scratch', () => {
  const first = splitBlocks('alpha\n\nbeta');
  assert.deepEqual(growBlocks('alpha\n\nbeta', first, 'gamma').blocks, ['gamma']);
});

test('a path the server wrote is named relative to its root, or not at all outside it', () => {
  assert.equal(underRoot('/srv/root/notes/prime-1.ipynb', '/srv/root'), 'notes/prime-1.ipynb');
  assert.equal(underRoot('/srv/root/a.ipynb', '/srv/root/'), 'a.ipynb');
  assert.equal(underRoot('/srv/rooted/a.ipynb', '/srv/root'), null);
  assert.equal(underRoot('/home/u/.prime/a.ipynb', ''), null);
});
