/** What the part widgets need from the panel: rendermime, the controller and Jupyter-native actions. */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import type { ChatController } from '../controller';
import type { ICellChange } from '../review';

/** A cell of a notebook, as it was when the user asked about it. */
export interface ICellTarget {
  readonly path: string;
  readonly cellId: string;
  readonly source: string;
}

/** Actions that reach outside the panel into JupyterLab (notebooks, consoles). */
export interface IJupyterActions {
  /** Put `code` in a new code cell below the active cell of the current notebook (or a new notebook). */
  insertIntoNotebook(code: string): Promise<void>;
  /** Insert `code` as `insertIntoNotebook` does, then execute that cell. */
  runInNotebook(code: string): Promise<void>;
  /** The source of the target cell now, or null when its notebook is closed or the cell is gone. */
  cellSource(target: ICellTarget): string | null;
  /** Replace the target cell's source; false when the cell is gone. */
  replaceCell(target: ICellTarget, code: string): boolean;
  /** Open a console attached to the kernel with `kernelId`. */
  openKernelConsole(kernelId: string): Promise<void>;
  /** Open the notebook at `path` (relative to the server's root) with the cell `cellId` active and shown. */
  openNotebookCell(path: string, cellId: string): Promise<void>;
  /**
   * Show what the agent just saved into the notebook at `path` when it is open: reload it from disk when
   * it has no unsaved changes ('reloaded'); 'unsaved' when it has some (nothing is touched); 'live' when
   * the notebook is collaborative (the change is already there); 'closed' when it is not open.
   */
  showSavedNotebook(path: string): Promise<'reloaded' | 'unsaved' | 'live' | 'closed'>;
  /** Mark the cells one `notebook_edit` changed for review in the open notebook (Keep / Undo). */
  markForReview(path: string, changes: readonly ICellChange[]): void;
  /** Undo one `notebook_edit`'s changes in the open notebook, newest first; how many were undone. */
  undoChanges(path: string, changes: readonly ICellChange[]): Promise<number>;
}

export interface IPanelContext {
  /** The panel's rendermime registry (Lab's, plus the diff renderer). */
  readonly rendermime: IRenderMimeRegistry;
  readonly controller: ChatController;
  readonly actions: IJupyterActions;
  /** Tool cards the user opened or closed, by tool call id (true = open); survives re-renders. */
  readonly toggled: Map<string, boolean>;
}
