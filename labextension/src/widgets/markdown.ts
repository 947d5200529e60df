/**
 * Markdown through JupyterLab's rendermime (its parser, code highlighting, LaTeX typesetting and
 * sanitizer), rendered block by block: a growing answer re-renders only its last block, so the cost
 * of a repaint stays flat however long the answer gets.
 */
import { MimeModel, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel, Widget } from '@lumino/widgets';

import { IBlocks, growBlocks, splitBlocks } from '../format';
import { WorkQueue } from '../tasks';

/** The queue all markdown blocks of the page share: the newest first, at most ~10 ms per task. */
const renderQueue = new WorkQueue();

const MARKDOWN = 'text/markdown';

/** What MathJax (as Lab configures it) looks for: `$`, `\\(`, `\\[` and `\\begin{`. */
const MATH = /\$|\\\(|\\\[|\\begin\{/;

/**
 * Lab's LaTeX typesetter, minus the calls that cannot find anything (MathJax forces a layout on every
 * call, formula or not), and except for nodes on hold: the block of an answer that is still streaming
 * is typeset once, when it is complete, instead of on every repaint.
 */
export class HeldTypesetter implements IRenderMime.ILatexTypesetter {
  private readonly held = new WeakSet<HTMLElement>();
  private readonly skipped = new WeakSet<HTMLElement>();

  constructor(private readonly inner: IRenderMime.ILatexTypesetter | null) {}

  typeset(element: HTMLElement): void | Promise<void> {
    if (this.held.has(element)) {
      this.skipped.add(element);
      return;
    }
    if (!MATH.test(element.textContent ?? '')) {
      return;
    }
    return this.inner?.typeset(element);
  }

  hold(element: HTMLElement): void {
    this.held.add(element);
  }

  /** Stop holding `element`; typeset it (in a coming slice) if a render skipped it and no new one is on its way. */
  release(element: HTMLElement, rendering: boolean): void {
    if (this.held.delete(element) && this.skipped.delete(element) && !rendering) {
      void renderQueue.run(async () => {
        if (element.isConnected) {
          await this.typeset(element);
        }
      });
    }
  }

  /** Load the typesetter before it is needed (MathJax loads on first use, in one long task). */
  async warmUp(): Promise<void> {
    const probe = document.createElement('div');
    probe.textContent = '$x$';
    probe.style.position = 'absolute';
    probe.style.visibility = 'hidden';
    document.body.appendChild(probe);
    try {
      await this.inner?.typeset(probe);
    } finally {
      probe.remove();
    }
  }
}

/** One block and its renderer; renders never overlap, the newest source wins. */
class Block {
  readonly renderer: IRenderMime.IRenderer;
  private shown: string | null = null;
  private wanted = '';
  private running: Promise<void> | null = null;

  constructor(rendermime: IRenderMimeRegistry) {
    this.renderer = rendermime.createRenderer(MARKDOWN);
    this.renderer.addClass('jp-PrimePanel-markdownBlock');
  }

  set(source: string): void {
    if (source !== this.wanted) {
      this.wanted = source;
      void this.render();
    }
  }

  /** A render has not caught up with the newest source yet. */
  get rendering(): boolean {
    return this.shown !== this.wanted;
  }

  /** Resolves once the newest source is on screen. */
  render(): Promise<void> {
    this.running ??= this.loop().finally(() => {
      this.running = null;
      if (this.shown !== this.wanted && !this.renderer.isDisposed) {
        void this.render();
      }
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    while (this.shown !== this.wanted && !this.renderer.isDisposed) {
      await renderQueue.run(() => this.renderNewest());
    }
  }

  private async renderNewest(): Promise<void> {
    const source = this.wanted;
    if (this.shown === source || this.renderer.isDisposed) {
      return;
    }
    await this.renderer.renderModel(new MimeModel({ data: { [MARKDOWN]: source }, trusted: false }));
    this.shown = source;
  }
}

/** A markdown document as a column of independently rendered blocks. */
export class MarkdownView extends Panel {
  private blocks: Block[] = [];
  private text = '';
  private split: IBlocks = { blocks: [], starts: [] };
  private streaming = false;
  private readonly typesetter: HeldTypesetter | null;

  constructor(private readonly rendermime: IRenderMimeRegistry) {
    super();
    this.addClass('jp-PrimePanel-markdown');
    const typesetter = rendermime.latexTypesetter;
    this.typesetter = typesetter instanceof HeldTypesetter ? typesetter : null;
  }

  /**
   * Show `text`; only blocks whose source changed are rendered again. While `streaming`, the last
   * block (the one still growing) is not typeset.
   */
  setText(text: string, streaming = false): void {
    if (text === this.text && streaming === this.streaming) {
      return;
    }
    // A streaming text only grows: split again from its last block on. Once final, check it really did.
    const grew = streaming || text.startsWith(this.text);
    this.split = grew ? growBlocks(this.text, this.split, text) : splitBlocks(text);
    this.text = text;
    this.streaming = streaming;
    const sources = this.split.blocks;
    sources.forEach((source, i) => {
      let block = this.blocks[i];
      if (!block) {
        block = new Block(this.rendermime);
        this.blocks.push(block);
        this.addWidget(block.renderer);
      }
      const node = block.renderer.node;
      const hold = streaming && i === sources.length - 1;
      if (hold) {
        this.typesetter?.hold(node);
      }
      block.set(source);
      if (!hold) {
        this.typesetter?.release(node, block.rendering);
      }
    });
    for (const extra of this.blocks.splice(sources.length)) {
      extra.renderer.dispose();
    }
  }

  /** Resolves once every block shows its newest source. */
  async settled(): Promise<void> {
    await Promise.all(this.blocks.map(b => b.render()));
  }
}

/** A widget around one DOM node (for parts that need no rendermime). */
export function nodeWidget(node: HTMLElement, className: string): Widget {
  const widget = new Widget({ node });
  widget.addClass(className);
  return widget;
}
