/**
 * Jupyter-native actions: insert the agent's code into a notebook, open a console on the agent's
 * kernel (it is an ordinary Jupyter kernel of this server), and read the active notebook cell for
 * "Ask Prime about this cell" / "Explain this error".
 *
 * Notebooks are reached through Lab's commands and the shell's current widget, read through the few
 * members used here (checked at run time), so the panel does not pull in the notebook package.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import type { Widget } from '@lumino/widgets';

import { underRoot } from './format';
import { type ICellChange, NotebookReview } from './review';
import type { ICellTarget, IJupyterActions } from './widgets/context';

interface ISharedSource {
  getSource(): string;
  setSource(source: string): void;
}

interface ICellLike {
  readonly model: { readonly id: string; readonly type: string; readonly sharedModel: ISharedSource; toJSON(): unknown };
}

interface INotebookPanelLike extends Widget {
  readonly content: {
    readonly activeCell: ICellLike | null;
    readonly widgets: readonly ICellLike[];
    activeCellIndex: number;
    scrollToItem?(index: number): Promise<void>;
  };
  readonly context: {
    readonly path: string;
    readonly ready: Promise<void>;
    readonly model: { readonly dirty: boolean; readonly collaborative?: boolean };
    revert(): Promise<void>;
  };
  readonly sessionContext?: { readonly ready: Promise<void> };
}

function has(value: unknown, key: string): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && key in value;
}

/** `widget` when it is a notebook panel (duck-typed on the members used here), else null. */
export function asNotebook(widget: Widget | null | undefined): INotebookPanelLike | null {
  if (!has(widget, 'content') || !has(widget, 'context') || !has(widget.content, 'activeCell')) {
    return null;
  }
  return has(widget.context, 'path') ? (widget as unknown as INotebookPanelLike) : null;
}

/** The active cell of a notebook, as what the prompts need. */
export interface ICellInfo extends ICellTarget {
  readonly cellType: string;
  /** Error outputs as `ename: evalue` plus the traceback, without ANSI colours. */
  readonly errors: string[];
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function errorTexts(cell: unknown): string[] {
  if (!has(cell, 'outputs') || !Array.isArray(cell.outputs)) {
    return [];
  }
  return (cell.outputs as unknown[]).flatMap(output => {
    if (!has(output, 'output_type') || output.output_type !== 'error') {
      return [];
    }
    const traceback = Array.isArray(output.traceback) ? (output.traceback as unknown[]).map(String).join('\n') : '';
    return [`${String(output.ename)}: ${String(output.evalue)}\n${traceback}`.replace(ANSI, '').trim()];
  });
}

/** Tracks the notebook the user worked in last, and performs the actions on it. */
export class JupyterActions implements IJupyterActions {
  private lastNotebook: INotebookPanelLike | null = null;
  /** The agent's notebook edits under review in the open notebooks (Keep / Undo per cell). */
  readonly review = new NotebookReview(this);

  constructor(private readonly app: JupyterFrontEnd) {}

  /** Call when the shell's current widget changes. */
  noticeCurrent(widget: Widget | null): void {
    const notebook = asNotebook(widget);
    if (notebook) {
      this.lastNotebook = notebook;
    }
  }

  /** The current notebook, else the one used last (if still open). */
  notebook(): INotebookPanelLike | null {
    const current = asNotebook(this.app.shell.currentWidget);
    if (current) {
      return current;
    }
    return this.lastNotebook && !this.lastNotebook.isDisposed ? this.lastNotebook : null;
  }

  /** The active cell of the current notebook. */
  activeCell(): ICellInfo | null {
    const notebook = this.notebook();
    const cell = notebook?.content.activeCell;
    if (!notebook || !cell) {
      return null;
    }
    return {
      path: notebook.context.path,
      cellId: cell.model.id,
      source: cell.model.sharedModel.getSource(),
      cellType: cell.model.type,
      errors: errorTexts(cell.model.toJSON())
    };
  }

  async insertIntoNotebook(code: string): Promise<void> {
    await this.insert(code);
  }

  /** Insert `code` below the active cell, then run it in the notebook's kernel. */
  async runInNotebook(code: string): Promise<void> {
    const notebook = await this.insert(code);
    if (notebook) {
      await notebook.sessionContext?.ready;
      await this.app.commands.execute('notebook:run-cell');
    }
  }

  /** The notebook open at `path` and its cell `cellId` now, or null when either is gone. */
  private findCell(target: ICellTarget): [INotebookPanelLike, ICellLike] | null {
    for (const widget of this.app.shell.widgets('main')) {
      const notebook = asNotebook(widget);
      if (notebook?.context.path === target.path) {
        const cell = notebook.content.widgets.find(c => c.model.id === target.cellId);
        return cell ? [notebook, cell] : null;
      }
    }
    return null;
  }

  cellSource(target: ICellTarget): string | null {
    return this.findCell(target)?.[1].model.sharedModel.getSource() ?? null;
  }

  replaceCell(target: ICellTarget, code: string): boolean {
    const found = this.findCell(target);
    if (!found) {
      return false;
    }
    this.app.shell.activateById(found[0].id);
    found[1].model.sharedModel.setSource(code);
    return true;
  }

  /** Put `code` in a new cell below the active one (of a new notebook when none is open). */
  private async insert(code: string): Promise<INotebookPanelLike | null> {
    let notebook = this.notebook();
    if (!notebook) {
      const created: unknown = await this.app.commands.execute('notebook:create-new', { kernelName: 'python3' });
      notebook = asNotebook(created as Widget);
      if (!notebook) {
        return null;
      }
      await notebook.context.ready;
    } else {
      this.app.shell.activateById(notebook.id);
      await this.app.commands.execute('notebook:insert-cell-below');
    }
    notebook.content.activeCell?.model.sharedModel.setSource(code);
    return notebook;
  }

  /** Open the file the server wrote at `absolutePath`; false when it is outside the server's root. */
  async openFile(absolutePath: string): Promise<boolean> {
    const path = underRoot(absolutePath, PageConfig.getOption('serverRoot'));
    if (path === null) {
      return false;
    }
    await this.app.commands.execute('docmanager:open', { path });
    return true;
  }

  /** The notebook open at `path`, if any. */
  openNotebookAt(path: string): INotebookPanelLike | null {
    return this.openNotebook(path);
  }

  markForReview(path: string, changes: readonly ICellChange[]): void {
    this.review.mark(path, changes);
  }

  undoChanges(path: string, changes: readonly ICellChange[]): Promise<number> {
    return this.review.undoAll(path, changes);
  }

  private openNotebook(path: string): INotebookPanelLike | null {
    for (const widget of this.app.shell.widgets('main')) {
      const notebook = asNotebook(widget);
      if (notebook?.context.path === path) {
        return notebook;
      }
    }
    return null;
  }

  async openNotebookCell(path: string, cellId: string): Promise<void> {
    const opened: unknown = await this.app.commands.execute('docmanager:open', { path });
    const notebook = asNotebook(opened as Widget) ?? this.openNotebook(path);
    if (!notebook) {
      return;
    }
    await notebook.context.ready;
    this.app.shell.activateById(notebook.id);
    const index = notebook.content.widgets.findIndex(cell => cell.model.id === cellId);
    if (index >= 0) {
      notebook.content.activeCellIndex = index;
      await notebook.content.scrollToItem?.(index);
    }
  }

  async showSavedNotebook(path: string): Promise<'reloaded' | 'unsaved' | 'live' | 'closed'> {
    const notebook = this.openNotebook(path);
    if (!notebook) {
      return 'closed';
    }
    const model = notebook.context.model;
    if (model.collaborative) {
      this.review.decorate(path);
      return 'live';
    }
    if (model.dirty) {
      return 'unsaved';
    }
    await notebook.context.revert();
    this.review.decorate(path);
    return 'reloaded';
  }

  async openKernelConsole(kernelId: string): Promise<void> {
    await this.app.commands.execute('console:create', {
      kernelPreference: { id: kernelId },
      name: 'Prime agent kernel',
      activate: true
    });
  }
}
