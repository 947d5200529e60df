/**
 * Provenance metadata on the cells `%%prime --insert` puts into a notebook.
 *
 * The kernel asks for the new cell the standard way, a `set_next_input` payload on its execute reply,
 * which every front end honours with the text alone (JupyterLab inserts `{source, metadata: {trusted:
 * false}}`, whatever else the payload holds). The magics add the cell's metadata to that payload
 * (`metadata: {prime: {session, entry, model}}`); this module hears the reply on the notebook's
 * kernel and, once Lab has inserted the cell, sets that metadata on it. Without this extension the
 * cell still comes, with its provenance as a comment line only.
 *
 * Notebooks and kernels are duck-typed on the few members used here, as in `notebook.ts`.
 */
import type { ISignal } from '@lumino/signaling';

/** What an execute reply's `set_next_input` payload asks for, when it carries metadata. */
export interface IInsertRequest {
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The insertion a kernel message asks for, with metadata; null for any other message. */
export function insertRequest(message: unknown): IInsertRequest | null {
  const msg = record(message);
  const header = record(msg?.header);
  const content = record(msg?.content);
  if (header?.msg_type !== 'execute_reply' || content?.status !== 'ok' || !Array.isArray(content.payload)) {
    return null;
  }
  for (const item of content.payload as unknown[]) {
    const payload = record(item);
    const metadata = record(payload?.metadata);
    if (payload?.source === 'set_next_input' && typeof payload.text === 'string' && metadata && !payload.replace) {
      return { text: payload.text, metadata };
    }
  }
  return null;
}

interface ICellModelLike {
  readonly type: string;
  readonly sharedModel: { getSource(): string; setMetadata(key: string, value: unknown): void };
}

interface ICellListLike {
  readonly changed: ISignal<unknown, { type: string; newValues: readonly ICellModelLike[] }>;
}

interface IKernelLike {
  readonly anyMessage: ISignal<unknown, { msg: unknown; direction: string }>;
}

/** The members of a notebook panel this module uses. */
export interface IWatchedNotebook {
  readonly isDisposed: boolean;
  readonly disposed: ISignal<unknown, unknown>;
  readonly content: { readonly model: { readonly cells: ICellListLike } | null };
  readonly sessionContext: {
    readonly session: { readonly kernel: IKernelLike | null } | null;
    readonly kernelChanged: ISignal<unknown, { newValue: IKernelLike | null }>;
  };
}

function isWatchable(value: unknown): value is IWatchedNotebook {
  const context = record(record(value)?.sessionContext);
  return !!context && 'kernelChanged' in context && 'session' in context && !!record(record(value)?.content);
}

/** How long an asked-for cell may take to appear before the request is dropped. */
const INSERT_WAIT_MS = 10000;

/** Watches the notebooks it is shown and puts the asked-for metadata on the cells their kernels insert. */
export class InsertProvenance {
  private readonly watched = new Set<IWatchedNotebook>();

  /** Start watching `widget` if it is a notebook panel not watched yet. */
  watch(widget: unknown): void {
    if (!isWatchable(widget) || this.watched.has(widget) || widget.isDisposed) {
      return;
    }
    const notebook = widget;
    this.watched.add(notebook);
    const onMessage = (_: unknown, args: { msg: unknown; direction: string }): void => {
      const request = args.direction === 'recv' ? insertRequest(args.msg) : null;
      if (request) {
        this.await(notebook, request);
      }
    };
    let kernel = notebook.sessionContext.session?.kernel ?? null;
    kernel?.anyMessage.connect(onMessage);
    notebook.sessionContext.kernelChanged.connect((_, change) => {
      kernel?.anyMessage.disconnect(onMessage);
      kernel = change.newValue;
      kernel?.anyMessage.connect(onMessage);
    });
    notebook.disposed.connect(() => {
      kernel?.anyMessage.disconnect(onMessage);
      this.watched.delete(notebook);
    });
  }

  /** Set the metadata on the next code cell inserted with the request's text. */
  private await(notebook: IWatchedNotebook, request: IInsertRequest): void {
    const cells = notebook.content.model?.cells;
    if (!cells) {
      return;
    }
    const onChange = (_: unknown, change: { type: string; newValues: readonly ICellModelLike[] }): void => {
      const asked = (c: ICellModelLike): boolean => c.type === 'code' && c.sharedModel.getSource() === request.text;
      const cell = change.type === 'add' ? change.newValues.find(asked) : undefined;
      if (cell) {
        for (const [key, value] of Object.entries(request.metadata)) {
          cell.sharedModel.setMetadata(key, value);
        }
        stop();
      }
    };
    const timer = setTimeout(() => stop(), INSERT_WAIT_MS);
    const stop = (): void => {
      clearTimeout(timer);
      cells.changed.disconnect(onChange);
    };
    cells.changed.connect(onChange);
  }
}
