/**
 * Unified diffs, coloured with theme variables: the Edit tool's result, and the
 * `application/vnd.prime.diff+json` bundle that the kernel-side `edit()` helper publishes (registered
 * as a rendermime factory, so such outputs render as diffs in tool cards).
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { h } from './dom';

/** The MIME type of the kernel helper's diff bundle (`prime_jupyter.kernel.helpers.DIFF_MIME`). */
export const DIFF_MIME = 'application/vnd.prime.diff+json';

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) {
    return 'jp-PrimeDiff-file';
  }
  if (line.startsWith('@@')) {
    return 'jp-PrimeDiff-hunk';
  }
  if (line.startsWith('+')) {
    return 'jp-PrimeDiff-add';
  }
  return line.startsWith('-') ? 'jp-PrimeDiff-del' : 'jp-PrimeDiff-context';
}

/** A `<pre>` of the diff, one span per line classed add / del / hunk / file / context. */
export function diffNode(diff: string): HTMLPreElement {
  const pre = h('pre', 'jp-PrimeDiff');
  for (const line of diff.split('\n')) {
    pre.appendChild(h('span', lineClass(line), `${line}\n`));
  }
  return pre;
}

/** Renders a diff bundle `{path, diff, firstChangedLine}`. */
class DiffRenderer extends Widget implements IRenderMime.IRenderer {
  constructor() {
    super();
    this.addClass('jp-PrimeDiff-output');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const value = model.data[DIFF_MIME];
    const diff = typeof value === 'object' && value !== null && 'diff' in value ? value.diff : null;
    const path = typeof value === 'object' && value !== null && 'path' in value ? value.path : null;
    this.node.replaceChildren();
    if (typeof path === 'string') {
      this.node.appendChild(h('div', 'jp-PrimeDiff-path', path));
    }
    this.node.appendChild(diffNode(typeof diff === 'string' ? diff : ''));
    return Promise.resolve();
  }
}

/** The rendermime factory of diff bundles: safe (no script, no HTML from the bundle). */
export const diffRendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [DIFF_MIME],
  defaultRank: 50,
  createRenderer: () => new DiffRenderer()
};
