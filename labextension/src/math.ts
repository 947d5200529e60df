/**
 * Math in markdown as the panel reads it, made plain for JupyterLab's renderer.
 *
 * A `$` starts math by pandoc's rule (`tex_math_dollars`): an opening `$` has a non-space character
 * right after it, its closing `$` (the next one) a non-space character right before it and no digit
 * right after it; otherwise the `$` is text. So "rising ~3.5 $/day | … | falling ~1.2 $/day" and
 * "$5 and $10" stay text, while `$x^2$` and `$$…$$` are math. `\(…\)` and `\[…\]` (how models
 * write math) are math too.
 *
 * JupyterLab's renderer would take any two `$` as math, twice over: before markdown parsing (its
 * `removeMath`) and in the DOM (MathJax); and markdown turns `\(` into a plain `(`. `prepareMath`
 * therefore writes each text dollar so that neither sees one: as `&#36;` (no `$` for `removeMath`)
 * inside its own `<span>` (MathJax looks for both delimiters in one run of text, and an element ends
 * the run); and `\(…\)`, `\[…\]` as `$…$`, `$$…$$`. Code spans, fenced and indented code are
 * left alone: neither stage looks for math in them. Pure: unit-tested in node.
 */

/** What a text dollar becomes. */
export const TEXT_DOLLAR = '<span class="jp-PrimePanel-dollar">&#36;</span>';

const FENCE = /^\s*(`{3,}|~{3,})/;
const INDENTED = /^( {4}|\t)/;

/** `markdown` with every dollar that does not delimit math written as `TEXT_DOLLAR`, and backslash delimiters as dollars. */
export function prepareMath(markdown: string): string {
  if (!markdown.includes('$') && !markdown.includes('\\')) {
    return markdown;
  }
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | null = null;
  const flush = (): void => {
    if (prose.length > 0) {
      out.push(protectProse(prose.join('\n')));
      prose = [];
    }
  };
  let indented = false;
  let blank = true;
  for (const line of markdown.split('\n')) {
    const marker = FENCE.exec(line);
    // Indented code starts after a blank line (or first) and goes on while lines stay indented or blank.
    indented = fence === null && (indented || blank) && (INDENTED.test(line) || (indented && line.trim() === ''));
    blank = line.trim() === '';
    if (indented) {
      flush();
      out.push(line);
    } else if (fence !== null) {
      out.push(line);
      if (marker && line.trimStart().startsWith(fence)) {
        fence = null;
      }
    } else if (marker) {
      flush();
      out.push(line);
      fence = marker[1];
    } else {
      prose.push(line);
    }
  }
  flush();
  return out.join('\n');
}

/** Markdown without fenced code: code spans and dollar math kept as they are, the rest rewritten (see above). */
function protectProse(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    let end = i + 1; // the end of what is kept verbatim from i
    if (c === '`') {
      end = codeSpanEnd(text, i);
    } else if (c === '\\') {
      const next = text[i + 1];
      if (next === '$') {
        out += TEXT_DOLLAR;
        i += 2;
        continue;
      }
      const close = next === '(' || next === '[' ? closing(text, i + 2, next === '(' ? '\\)' : '\\]') : null;
      if (close !== null) {
        const dollars = next === '(' ? '$' : '$$';
        out += dollars + text.slice(i + 2, close - 2) + dollars;
        i = close;
        continue;
      }
      end = i + 2;
    } else if (c === '$') {
      const math = text[i + 1] === '$' ? closing(text, i + 2, '$$') : inlineMathEnd(text, i);
      if (math === null) {
        const dollars = text[i + 1] === '$' ? 2 : 1;
        out += TEXT_DOLLAR.repeat(dollars);
        i += dollars;
        continue;
      }
      end = math;
    }
    out += text.slice(i, end);
    i = end;
  }
  return out;
}

/** Where the code span opened by the backticks at `start` ends (past its closing run); past the run if it is not closed. */
function codeSpanEnd(text: string, start: number): number {
  const runEnd = (from: number): number => {
    let j = from;
    while (text[j] === '`') {
      j++;
    }
    return j;
  };
  const open = runEnd(start);
  for (let j = text.indexOf('`', open); j >= 0; j = text.indexOf('`', j)) {
    const end = runEnd(j);
    if (end - j === open - start) {
      return end;
    }
    j = end;
  }
  return open;
}

/** The index past the first `close` at or after `from`, skipping backslash escapes; null when there is none. */
function closing(text: string, from: number, close: string): number | null {
  for (let j = from; j < text.length; j++) {
    if (text.startsWith(close, j)) {
      return j + close.length;
    }
    if (text[j] === '\\') {
      j++;
    }
  }
  return null;
}

/** The index past the `$` closing the inline math opened at `start`, or null when that `$` is text (pandoc's rule). */
function inlineMathEnd(text: string, start: number): number | null {
  const first = text[start + 1];
  if (first === undefined || /\s/.test(first)) {
    return null;
  }
  // In a table row a cell ends at an unescaped `|`: math cannot reach over it (nor over the line's end).
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const tableRow = text.slice(lineStart, start).trimStart().startsWith('|');
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
    } else if (tableRow && (c === '|' || c === '\n')) {
      return null;
    } else if (c === '$') {
      const before = text[j - 1];
      const after = text[j + 1] ?? '';
      return /\s/.test(before) || /\d/.test(after) ? null : j + 1;
    }
  }
  return null;
}
