/** Which `$` start math (pandoc's rule), what becomes of the dollars that are text, and of `\(`, `\[`. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { TEXT_DOLLAR, prepareMath } from '../src/math';

/** The markdown with its text dollars shown as `¤` (what the reader sees as a plain `$`). */
function shown(markdown: string): string {
  return prepareMath(markdown).split(TEXT_DOLLAR).join('¤');
}

test('prices and rates in prose stay text', () => {
  const cases: Array<[string, string]> = [
    ['It costs $5 and $10.', 'It costs ¤5 and ¤10.'],
    ['$20,000 and $30,000', '¤20,000 and ¤30,000'],
    ['rising ~3.5 $/day, falling ~1.2 $/day', 'rising ~3.5 ¤/day, falling ~1.2 ¤/day'],
    ['a $ sign alone', 'a ¤ sign alone'],
    ['ends with a dollar $', 'ends with a dollar ¤'],
    ['$ 5 and 6 $', '¤ 5 and 6 ¤'],
    ['from $x to $', 'from ¤x to ¤'],
    ['between $a $b', 'between ¤a ¤b'],
    ['US$5 or US$6 per unit', 'US¤5 or US¤6 per unit'],
    ['$5$6', '¤5¤6'],
    ['an escaped \\$ sign and \\$x\\$', 'an escaped ¤ sign and ¤x¤'],
    ['$$ not closed', '¤¤ not closed']
  ];
  for (const [input, expected] of cases) {
    assert.equal(shown(input), expected, input);
  }
});

test('the table row of the issue stays a table of text', () => {
  const table = '| trend | rate |\n|---|---|\n| rising | ~3.5 $/day |\n| … | … |\n| falling | ~1.2 $/day |';
  assert.equal(shown(table), table.replace(/\$/g, '¤'));
  assert.equal(shown('| rising ~3.5 $/day | … | falling ~1.2 $/day |'), '| rising ~3.5 ¤/day | … | falling ~1.2 ¤/day |');
});

test('math in a table cell is math, but it cannot reach over a cell', () => {
  assert.equal(shown('| $x^2$ | $y$ |'), '| $x^2$ | $y$ |');
  assert.equal(shown('| $5/day | 3$ |'), '| ¤5/day | 3¤ |');
});

test('inline math by pandoc rule stays math', () => {
  const math = [
    '$x$',
    'The mean is $\\mu = \\frac{1}{n}\\sum x_i$ for block 5.',
    'so $a+b$, and $c$.',
    'with $x_1$ and $y_2$ here',
    'a price of $\\$5$ in math',
    'the set $\\{1, 2\\}$',
    'two lines $a +\nb$ of math',
    'power $2^{10}$ bytes',
    '($x$)',
    '$x$-axis'
  ];
  for (const input of math) {
    assert.equal(prepareMath(input), input, input);
  }
});

test('a closing dollar right before a digit, or after a space, is no closing dollar', () => {
  assert.equal(shown('$x$5'), '¤x¤5');
  assert.equal(shown('$x $ and'), '¤x ¤ and');
  assert.equal(shown('$x $y$'), '¤x $y$');
});

test('display math stays as it is', () => {
  const kept = ['$$\\int_0^1 f(x)\\,dx$$', '$$\na = b + c\n$$', 'before $$x$$ after', '\\begin{equation}x\\end{equation}'];
  for (const input of kept) {
    assert.equal(prepareMath(input), input, input);
  }
});

test('backslash delimiters become dollar delimiters, which markdown cannot unescape', () => {
  const cases: Array<[string, string]> = [
    ['and \\(\\sigma^2\\) its variance', 'and $\\sigma^2$ its variance'],
    ['\\[ e^{i\\pi} + 1 = 0 \\]', '$$ e^{i\\pi} + 1 = 0 $$'],
    ['\\[\na = \\frac{1}{2}\n\\]', '$$\na = \\frac{1}{2}\n$$'],
    ['inline \\(a\\) then $5', 'inline $a$ then ' + TEXT_DOLLAR + '5'],
    ['a lone \\( paren', 'a lone \\( paren'],
    ['Jupyter style \\\\(x\\\\)', 'Jupyter style \\\\(x\\\\)'],
    ['`\\(code\\)` and \\(x\\)', '`\\(code\\)` and $x$']
  ];
  for (const [input, expected] of cases) {
    assert.equal(prepareMath(input), expected, input);
  }
});

test('code keeps its dollars as they are', () => {
  const code = [
    'run `echo $HOME` and `$PATH`',
    '``a ` $b``',
    '```bash\necho $HOME $PATH\n```',
    '~~~\nprice = $5 and $6\n~~~'
  ];
  for (const input of code) {
    assert.equal(prepareMath(input), input, input);
  }
  assert.equal(shown('`$x` then $5 and `y`'), '`$x` then ¤5 and `y`');
  assert.equal(shown('```py\nx = "$"\n```\nafter $5 and $6'), '```py\nx = "$"\n```\nafter ¤5 and ¤6');
  assert.equal(shown('an open ` tick $5'), 'an open ` tick ¤5');
  assert.equal(shown('    $ pip install x\n    echo $5\n\nthen $5'), '    $ pip install x\n    echo $5\n\nthen ¤5');
  assert.equal(shown('a paragraph\n    still $5 prose'), 'a paragraph\n    still ¤5 prose');
});

test('a text without math or dollars comes back as it is', () => {
  const text = 'No money here: *just* `code`, a \\* star and (parentheses).';
  assert.equal(prepareMath(text), text);
});
