import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { lineDiff } from '../src/linediff';

test('a changed line shows as removed then added, the rest as context', () => {
  const diff = lineDiff('x = 1\ny = x / 0\nprint(y)', 'x = 1\ny = x / 1\nprint(y)');
  assert.deepEqual(diff.split('\n'), ['--- cell', '+++ fix', ' x = 1', '-y = x / 0', '+y = x / 1', ' print(y)']);
});

test('added and removed lines at either end', () => {
  assert.deepEqual(lineDiff('a\nb', 'b\nc').split('\n').slice(2), ['-a', ' b', '+c']);
});
