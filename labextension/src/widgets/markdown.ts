/**
 * Markdown through JupyterLab's rendermime (its parser, code highlighting, LaTeX typesetting and
 * sanitizer; a `$` is math only by pandoc's rule, see `math.ts`), rendered block by block: a
 * growing answer re-renders only its last block, so the cost of a repaint stays flat however long
 * the answer gets.
 */
import { MimeModel, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel, Widget } from '@lumino/widgets';

import { prepareMath } from '../math';
import { IBlocks, growBlocks, splitBlocks } from '../format';
import { WorkQueue } from '../tasks';

/**
 * The queue all markdown blocks of the page share: the newest first, a few milliseconds per task (a
 * block that contains math takes about 5 ms more to typeset, and a busy machine stretches every task).
 */
const renderQueue = new WorkQueue(4);

/**
 * A streaming text is shown again at most this often: at 20 renders a second it still flows, two
 * frames in three have nothing to lay out or paint, and the growing text (which every look at it
 * copies whole, a V8 string built by `+` being flattened first) makes a third of the garbage.
 */
const STREAM_MS = 50;

const MARKDOWN = 'text/markdown';

/** What MathJax (as Lab configures it) looks for: `$`, `\\(`, `\\[` and `\\begin{`. */
const MATH = /\$|\\\(|\\\[|\\begin\{/;

/**
 * Lab's LaTeX typesetter, minus the calls that cannot find anything (MathJax forces a layout on every
 * call, formula or not), and except for nodes on hold: the block of an answer that is still streaming
 * is typeset once, when it is complete, instead of on every repaint. Typesetting (5-15 ms a block,
 * most of it MathJax measuring the page) runs as its own job of the render queue, after the render
 * that asked for it: together they made the longest tasks of a streamed answer.
 */
export class HeldTypesetter implements IRenderMime.ILatexTypesetter {
  private readonly held = new WeakSet<HTMLElement>();
  private readonly skipped = new WeakSet<HTMLElement>();
  private readonly queued = new Set<HTMLElement>();

  constructor(private readonly inner: IRenderMime.ILatexTypesetter | null) {}

  typeset(element: HTMLElement): void {
    if (this.held.has(element)) {
      this.skipped.add(element);
    } else if (MATH.test(element.textContent ?? '')) {
      this.later(element);
    }
  }

  hold(element: HTMLElement): void {
    this.held.add(element);
  }

  /** Stop holding `element`; typeset it (in a coming slice) if a render skipped it and no new one is on its way. */
  release(element: HTMLElement, rendering: boolean): void {
    if (this.held.delete(element) && this.skipped.delete(element) && !rendering) {
      this.typeset(element);
    }
  }

  private later(element: HTMLElement): void {
    if (this.queued.has(element)) {
      return;
    }
    this.queued.add(element);
    const typeset = async (): Promise<void> => {
      this.queued.delete(element);
      if (element.isConnected) {
        await this.inner?.typeset(element);
      }
    };
    void renderQueue.run(typeset, true);
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
    const markdown = prepareMath(source);
    await this.renderer.renderModel(new MimeModel({ data: { [MARKDOWN]: markdown }, trusted: false }));
    this.shown = source;
  }
}

/**
 * How many blocks share one chunk: the browser skips the layout and paint of chunks off screen
 * (`content-visibility`), and with a chunk per block a 120 KB answer made 600 of them to check on every
 * frame of a stream; grouped, a frame costs what the chunk that grows costs.
 */
const CHUNK = 16;

/** A markdown document as a column of independently rendered blocks, in chunks of `CHUNK`. */
export class MarkdownView extends Panel {
  private blocks: Block[] = [];
  private readonly chunks: Panel[] = [];
  private text = '';
  private split: IBlocks = { blocks: [], starts: [] };
  private streaming = false;
  private appliedAt = -Infinity;
  private later: string | null = null;
  private timer: number | null = null;
  private readonly typesetter: HeldTypesetter | null;

  constructor(private readonly rendermime: IRenderMimeRegistry) {
    super();
    this.addClass('jp-PrimePanel-markdown');
    const typesetter = rendermime.latexTypesetter;
    this.typesetter = typesetter instanceof HeldTypesetter ? typesetter : null;
  }

  /**
   * Show `text`; only blocks whose source changed are rendered again. While `streaming`, the last
   * block (the one still growing) is not typeset, and new text is taken at most every `STREAM_MS`.
   */
  setText(text: string, streaming = false): void {
    const wait = this.appliedAt + STREAM_MS - performance.now();
    if (streaming && this.streaming && wait > 0) {
      this.later = text;
      this.timer ??= window.setTimeout(() => {
        this.timer = null;
        const later = this.later;
        this.later = null;
        if (later !== null && !this.isDisposed) {
          this.apply(later, true);
        }
      }, wait);
      return;
    }
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
      this.timer = null;
    }
    this.later = null;
    this.apply(text, streaming);
  }

  dispose(): void {
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
    }
    super.dispose();
  }

  private apply(text: string, streaming: boolean): void {
    if (text === this.text && streaming === this.streaming) {
      return;
    }
    this.appliedAt = performance.now();
    // A streaming text only grows: split again from its last block on. Once final, check it really did.
    const grew = streaming || text.startsWith(this.text);
    const before = this.split.blocks;
    this.split = grew ? growBlocks(this.text, this.split, text) : splitBlocks(text);
    const wasStreaming = this.streaming;
    this.text = text;
    this.streaming = streaming;
    const sources = this.split.blocks;
    // Blocks that were finished and kept their source need nothing: start at the first that changed.
    let first = 0;
    const same = Math.min(before.length, sources.length) - (wasStreaming ? 1 : 0);
    while (first < same && before[first] === sources[first] && this.blocks[first]) {
      first++;
    }
    for (let i = first; i < sources.length; i++) {
      this.showBlock(i, sources[i], streaming && i === sources.length - 1);
    }
    for (const extra of this.blocks.splice(sources.length)) {
      extra.renderer.dispose();
    }
    for (const chunk of this.chunks.splice(Math.ceil(sources.length / CHUNK))) {
      chunk.dispose();
    }
  }

  /** Resolves once every block shows its newest source. */
  async settled(): Promise<void> {
    await Promise.all(this.blocks.map(b => b.render()));
  }

  private showBlock(i: number, source: string, hold: boolean): void {
    let block = this.blocks[i];
    if (!block) {
      block = new Block(this.rendermime);
      this.blocks.push(block);
      this.chunk(Math.floor(i / CHUNK)).addWidget(block.renderer);
    }
    const node = block.renderer.node;
    if (hold) {
      this.typesetter?.hold(node);
    }
    block.set(source);
    if (!hold) {
      this.typesetter?.release(node, block.rendering);
    }
  }

  private chunk(index: number): Panel {
    let chunk = this.chunks[index];
    if (!chunk) {
      chunk = new Panel();
      chunk.addClass('jp-PrimePanel-markdownChunk');
      this.chunks.push(chunk);
      this.addWidget(chunk);
    }
    return chunk;
  }
}

/** A widget around one DOM node (for parts that need no rendermime). */
export function nodeWidget(node: HTMLElement, className: string): Widget {
  const widget = new Widget({ node });
  widget.addClass(className);
  return widget;
}
