/**
 * The panel's fold against the expected view state of every golden stream (tests/golden/<name>.view.json),
 * the same files the Python fold is checked against (tests/golden/test_golden_view.py): the panel and the
 * Python front ends draw the same conversation from the same frames. The files are written by
 * tests/golden/golden_views.py, whose docstring describes them.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';

import { ViewState, applyFrame, emptyState } from '../src/model';
import type { ChatFrame } from '../src/protocol';
import { LineDecoder, parseFrame } from '../src/wire';
import { Json, viewToJSON } from './canonical';

const GOLDEN = join(__dirname, '..', '..', '..', '..', 'tests', 'golden');
const FRAMES = join(GOLDEN, 'frames');

interface Step {
  after: number;
  frame: string;
  changed: { [key: string]: Json };
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
