/**
 * The panel's fold against the expected view state of every golden stream (tests/golden/<name>.view.json),
 * and of a hydration (`chat/session`) taken mid-run of every scenario (tests/golden/hydration/<name>.json):
 * the same files the Python fold is checked against (tests/golden/test_golden_view.py), so the panel and
 * the Python front ends draw the same conversation from the same frames. The files are written by
 * tests/golden/golden_views.py and golden_hydrations.py, whose docstrings describe them.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';

import { ViewState, addLocalMessage, applyFrame, applyFrames, emptyState, fromSession } from '../src/model';
import type { ChatFrame, ChatSessionResponse } from '../src/protocol';
import { LineDecoder, parseFrame } from '../src/wire';
import { Json, viewToJSON } from './canonical';

const GOLDEN = join(__dirname, '..', '..', '..', '..', 'tests', 'golden');
const FRAMES = join(GOLDEN, 'frames');
const HYDRATION = join(GOLDEN, 'hydration');

interface Step {
  after: number;
  frame: string;
  changed: { [key: string]: Json };
}

interface ExpectedHydration {
  stream: string;
  cursor: number;
  response: ChatSessionResponse;
  previousCursor: number;
  fresh: { [key: string]: Json };
  resynced: { [key: string]: Json };
  final: { [key: string]: Json };
}

interface ExpectedView {
  stream: string;
  final: { [key: string]: Json };
  steps: Step[];
}

function streamsIn(dir: string): string[] {
  return readdirSync(dir)
    .filter(f => f.endsWith('.ndjson'))
    .sort()
    .map(f => join(dir, f));
}

const STREAMS = [...streamsIn(GOLDEN), ...streamsIn(FRAMES)];

function frames(path: string): ChatFrame[] {
  const decoder = new LineDecoder();
  const lines = [...decoder.feed(readFileSync(path, 'utf8')), ...decoder.close()];
  return lines.map(parseFrame).filter((f): f is ChatFrame => f !== null);
}

function viewPath(stream: string): string {
  return stream.replace(/\.ndjson$/, '.view.json');
}

/** The fold of `frames` as the expected files record it: each step's changed keys, then the final state. */
function fold(all: ChatFrame[]): { steps: Step[]; final: { [key: string]: Json } } {
  let state: ViewState = emptyState();
  let before = viewToJSON(state);
  const steps: Step[] = [];
  all.forEach((frame, i) => {
    state = applyFrame(state, frame);
    const after = viewToJSON(state);
    const changed = Object.fromEntries(Object.entries(after).filter(([key, value]) => !isDeepStrictEqual(before[key], value)));
    steps.push({ after: i + 1, frame: frame.type, changed });
    before = after;
  });
  return { steps, final: before };
}

test('there are golden streams with expected views, the hand-written server frames included', () => {
  assert.ok(STREAMS.length >= 7, `found ${STREAMS.join(', ')}`);
  assert.ok(STREAMS.some(s => s.startsWith(FRAMES)));
});

for (const stream of STREAMS) {
  const name = stream.slice(GOLDEN.length + 1);

  test(`${name}: has an expected view`, () => {
    assert.ok(existsSync(viewPath(stream)), `no ${viewPath(stream)}: run tests/golden/golden_views.py`);
  });

  test(`${name}: the panel's fold gives the expected view state at every step and at the end`, () => {
    const expected = JSON.parse(readFileSync(viewPath(stream), 'utf8')) as ExpectedView;
    const actual = fold(frames(stream));
    assert.equal(actual.steps.length, expected.steps.length, 'one step per frame');
    actual.steps.forEach((step, i) => {
      assert.deepStrictEqual(step, expected.steps[i], `${name}: after frame ${i + 1} (${step.frame})`);
    });
    assert.deepStrictEqual(actual.final, expected.final);
  });
}

test('every expected view belongs to a golden stream', () => {
  const views = [GOLDEN, FRAMES].flatMap(dir => readdirSync(dir).filter(f => f.endsWith('.view.json')).map(f => join(dir, f)));
  assert.deepEqual(views.sort(), STREAMS.map(viewPath).sort());
});

const HYDRATIONS = readdirSync(HYDRATION)
  .filter(f => f.endsWith('.json'))
  .sort();

test('there is a hydration of every mapped golden stream', () => {
  assert.deepEqual(HYDRATIONS.map(f => f.replace(/\.json$/, '.ndjson')), streamsIn(GOLDEN).map(s => s.slice(GOLDEN.length + 1)));
});

for (const file of HYDRATIONS) {
  test(`hydration/${file}: fromSession and the frames after its cursor give the expected views`, () => {
    const expected = JSON.parse(readFileSync(join(HYDRATION, file), 'utf8')) as ExpectedHydration;
    const all = frames(join(GOLDEN, expected.stream));
    const fresh = fromSession(expected.response);
    assert.deepStrictEqual(viewToJSON(fresh), expected.fresh, 'fresh');
    // A client that sent a message and saw the frames up to the first answer's start (golden_hydrations.py).
    const previous = applyFrames(addLocalMessage(emptyState(), 'local-1', 'sent', 0), all.slice(0, expected.previousCursor));
    assert.deepStrictEqual(viewToJSON(fromSession(expected.response, previous)), expected.resynced, 'resynced');
    assert.deepStrictEqual(viewToJSON(applyFrames(fresh, all.slice(expected.cursor))), expected.final, 'final');
  });
}
