/**
 * A line diff of two short texts (a notebook cell and the fix proposed for it), as a unified diff
 * without hunk headers: every line of both, `' '` kept, `'-'` removed, `'+'` added. Cells are short,
 * so the plain longest-common-subsequence table is fast enough.
 */

/** The unified diff of `before` and `after`, headed `--- <from>` / `+++ <to>`. */
export function lineDiff(before: string, after: string, from = 'cell', to = 'fix'): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: length of the longest common subsequence of a[i..] and b[j..]
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines = [`--- ${from}`, `+++ ${to}`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(` ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      lines.push(`-${a[i++]}`); // removals first, as unified diffs show them
    } else {
      lines.push(`+${b[j++]}`);
    }
  }
  return lines.join('\n');
}
