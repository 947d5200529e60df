/**
 * The review of the agent's notebook edits, in the open notebook: each cell the agent inserted or replaced
 * is marked, with Keep (the mark goes) and Undo (the cell goes back to what it was, outputs included when
 * the edit carried them), until reviewed; a card's "Undo these changes" undoes all of one edit.
 *
 * Undo never clobbers the user: a cell whose source is no longer what the agent wrote (the user typed in
 * it) is left as it is, and the undo says so. Undone changes are saved, as the agent's edits were.
 * Marks are kept for this page's life: a reload of the browser shows the notebook as saved, unmarked.
 */
import { Notification } from '@jupyterlab/apputils';

import type { JupyterActions } from './notebook';

/** One change of a `notebook_edit` call, as its details carry it (`tools/notebook_edit.py`). */
export interface ICellChange {
  readonly action: string;
  readonly cellId: string;
  readonly cellType: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly index: number;
  readonly fromIndex: number | null;
  readonly beforeOutputs: unknown[] | null;
  readonly beforeExecutionCount: number | null;
}

export type UndoOutcome = 'undone' | 'changed' | 'closed' | 'gone';

interface IYCellLike {
  getSource(): string;
  setSource(source: string): void;
  setOutputs?(outputs: unknown[]): void;
  execution_count?: number | null;
}

interface ICellWidgetLike {
  readonly node: HTMLElement;
  readonly model: { readonly id: string; readonly sharedModel: IYCellLike };
}

interface INotebookLike {
  readonly id: string;
  readonly content: {
    readonly widgets: readonly ICellWidgetLike[];
    readonly model: {
      readonly cells?: { readonly changed: { connect(slot: () => void): unknown } };
      readonly sharedModel: {
        insertCell(index: number, cell: Record<string, unknown>): unknown;
        deleteCell(index: number): void;
        moveCell(from: number, to: number): void;
      };
    } | null;
  };
  readonly context: { readonly path: string; save(): Promise<void> };
}

const BAR = 'jp-PrimeReview-bar';
const CHANGED = 'jp-PrimeReview-changed';

/** The cells under review, by notebook path and cell id, and the actions on them. */
export class NotebookReview {
  private readonly marks = new Map<string, Map<string, ICellChange>>();
  /** The notebook models whose cell list is watched: a reload or the user's edits rebuild cell widgets. */
  private readonly watched = new WeakSet<object>();
  /** Why an Undo was refused, by path and cell id: shown in that cell's bar. */
  private readonly refused = new Map<string, string>();

  constructor(private readonly actions: JupyterActions) {}

  /** Mark what one edit changed in the notebook at `path` (shown once the notebook is open). */
  mark(path: string, changes: readonly ICellChange[]): void {
    const marks = this.marks.get(path) ?? new Map<string, ICellChange>();
    for (const change of changes) {
      if (change.action === 'insert' || change.action === 'replace') {
        const earlier = marks.get(change.cellId);
        // a second edit of a cell keeps the first one's "before": undo goes back to the user's version
        marks.set(change.cellId, earlier ? { ...change, before: earlier.before, action: earlier.action } : change);
      }
    }
    this.marks.set(path, marks);
    this.decorate(path);
  }

  /** Whether `cellId` of `path` is still under review. */
  marked(path: string, cellId: string): boolean {
    return this.marks.get(path)?.has(cellId) ?? false;
  }

  /** Put the review bars on the marked cells of the open notebook at `path` (again after a reload). */
  decorate(path: string): void {
    const notebook = this.notebook(path);
    const marks = this.marks.get(path);
    if (!notebook || !marks) {
      return;
    }
    const model = notebook.content.model;
    if (model?.cells && !this.watched.has(model)) {
      this.watched.add(model);
      model.cells.changed.connect(() => void Promise.resolve().then(() => this.decorate(path)));
    }
    for (const cell of notebook.content.widgets) {
      const marked = marks.get(cell.model.id);
      cell.node.querySelector(`:scope > .${BAR}`)?.remove();
      cell.node.classList.toggle(CHANGED, !!marked);
      if (marked) {
        cell.node.prepend(this.bar(path, marked));
      }
    }
  }

  keep(path: string, cellId: string): void {
    this.marks.get(path)?.delete(cellId);
    this.refused.delete(`${path}\n${cellId}`);
    this.decorate(path);
  }

  /** Undo one change; what happened (the user is told when it could not be undone). */
  async undo(path: string, change: ICellChange, save = true): Promise<UndoOutcome> {
    const notebook = this.notebook(path);
    if (!notebook || !notebook.content.model) {
      return 'closed';
    }
    const cells = notebook.content.widgets;
    const index = cells.findIndex(c => c.model.id === change.cellId);
    const shared = notebook.content.model.sharedModel;
    let outcome: UndoOutcome = 'undone';
    if (change.action === 'delete') {
      shared.insertCell(Math.min(change.index, cells.length), this.restored(change));
    } else if (index < 0) {
      outcome = 'gone';
    } else if (change.action !== 'move' && cells[index].model.sharedModel.getSource() !== change.after) {
      outcome = 'changed';
    } else if (change.action === 'insert') {
      shared.deleteCell(index);
    } else if (change.action === 'replace') {
      const cell = cells[index].model.sharedModel;
      cell.setSource(change.before ?? '');
      if (change.beforeOutputs && cell.setOutputs) {
        cell.setOutputs(change.beforeOutputs);
        cell.execution_count = change.beforeExecutionCount;
      }
    } else if (change.fromIndex !== null) {
      shared.moveCell(index, Math.min(change.fromIndex, cells.length - 1));
    }
    if (outcome === 'changed') {
      const text = `Not undone: this cell changed since the agent wrote it, so your version is kept.`;
      this.refused.set(`${path}\n${change.cellId}`, text);
      Notification.warning(`${text} (${path}, cell ${change.cellId})`);
    } else if (outcome === 'gone') {
      Notification.warning(`Not undone: cell ${change.cellId} is no longer in ${path}.`);
    } else {
      this.marks.get(path)?.delete(change.cellId);
      if (save) {
        await notebook.context.save();
      }
    }
    this.decorate(path);
    return outcome;
  }

  /** Undo every change of one edit, newest first; how many were undone. */
  async undoAll(path: string, changes: readonly ICellChange[]): Promise<number> {
    let undone = 0;
    for (const change of [...changes].reverse()) {
      undone += (await this.undo(path, change, false)) === 'undone' ? 1 : 0;
    }
    await this.notebook(path)?.context.save();
    return undone;
  }

  private restored(change: ICellChange): Record<string, unknown> {
    const cell: Record<string, unknown> = { cell_type: change.cellType, source: change.before ?? '', metadata: {} };
    if (change.cellType === 'code') {
      cell.outputs = change.beforeOutputs ?? [];
      cell.execution_count = change.beforeExecutionCount;
    }
    return cell;
  }

  private bar(path: string, change: ICellChange): HTMLElement {
    const bar = document.createElement('div');
    bar.className = BAR;
    const label = document.createElement('span');
    const refused = this.refused.get(`${path}\n${change.cellId}`);
    label.textContent = refused ?? (change.action === 'insert' ? 'Prime added this cell' : 'Prime changed this cell');
    label.className = refused ? 'jp-PrimeReview-refused' : '';
    bar.append(label, this.button('Keep', 'jp-PrimeReview-keep', () => this.keep(path, change.cellId)));
    bar.append(this.button('Undo', 'jp-PrimeReview-undo', () => void this.undo(path, change)));
    return bar;
  }

  private button(text: string, className: string, onClick: () => void): HTMLButtonElement {
    const node = document.createElement('button');
    node.type = 'button';
    node.className = `jp-Button jp-mod-minimal ${className}`;
    node.textContent = text;
    node.addEventListener('click', event => {
      event.stopPropagation();
      onClick();
    });
    return node;
  }

  private notebook(path: string): INotebookLike | null {
    return this.actions.openNotebookAt(path) as INotebookLike | null;
  }
}
