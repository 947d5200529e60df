/**
 * How each tool is shown: `tool-IPython` (code, highlighted, and its outputs rendered through
 * rendermime exactly like a notebook cell's), `tool-Edit` (the diff), `tool-Bash` (command and output),
 * `tool-Read`, `tool-Write`, `tool-ASK` (the `ask` tool: short names are upper-cased by the part-type
 * rule, `protocol/parts.py`), and a generic card for any other tool.
 */
import type { IOutput } from '@jupyterlab/nbformat';
import { OutputArea, OutputAreaModel } from '@jupyterlab/outputarea';
import { addIcon, consoleIcon } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';

import { partialJsonString } from '../format';
import type { ToolView } from '../model';
import type { IPanelContext } from './context';
import { lineDiff } from '../linediff';
import type { ICellChange } from '../review';
import { diffNode } from './diff';
import { button, fence, h, languageOf } from './dom';
import { MarkdownView } from './markdown';
import type { IToolBody, IToolKind } from './toolcard';

/** A string argument, or as much of it as the model has written so far. */
export function inputString(part: ToolView, key: string): string {
  const value = part.input?.[key];
  if (typeof value === 'string') {
    return value;
  }
  return part.draft ? (partialJsonString(part.draft, key) ?? '') : '';
}

/** The text the tool returned (what the model saw), or its error. */
export function outputText(part: ToolView): string {
  const text = (part.output?.content ?? []).flatMap(block => (block.type === 'text' ? [block.text] : []));
  return text.length ? text.join('\n') : (part.errorText ?? '');
}

function firstLine(text: string): string {
  const line = text.split('\n').find(l => l.trim() !== '') ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function detail(part: ToolView, key: string): unknown {
  return part.output?.details?.[key];
}

/** A `<pre>` of text, cut to `maxLines` with a note of what was left out. */
function textBlock(text: string, className: string, maxLines = 400): HTMLElement {
  const lines = text.split('\n');
  const shown = lines.length > maxLines ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`] : lines;
  return h('pre', `jp-PrimeTool-text ${className}`, shown.join('\n'));
}

/** A body made of plain DOM, rebuilt when the part changes. */
class DomBody extends Widget implements IToolBody {
  constructor(private readonly build: (part: ToolView) => Node[]) {
    super();
    this.addClass('jp-PrimeTool-dom');
  }

  render(part: ToolView): void {
    this.node.replaceChildren(...this.build(part));
  }
}

/** Markdown (highlighted code) on top, plain DOM below. */
class CodeBody extends Panel implements IToolBody {
  private readonly code: MarkdownView;
  private readonly rest = new Widget();

  constructor(
    context: IPanelContext,
    private readonly source: (part: ToolView) => string,
    private readonly below: (part: ToolView) => Node[]
  ) {
    super();
    this.code = new MarkdownView(context.rendermime);
    this.addWidget(this.code);
    this.addWidget(this.rest);
  }

  render(part: ToolView): void {
    this.code.setText(this.source(part));
    this.rest.node.replaceChildren(...this.below(part));
  }
}

/** The code of an IPython call and its outputs, rendered by Lab's own output area. */
class IPythonBody extends Panel implements IToolBody {
  private readonly code: MarkdownView;
  private readonly model = new OutputAreaModel({ trusted: false });
  private readonly notes = new Widget();
  private shownOutput: ToolView['output'] = undefined;

  constructor(context: IPanelContext) {
    super();
    this.addClass('jp-PrimeIPython');
    this.code = new MarkdownView(context.rendermime);
    this.addWidget(this.code);
    const area = new OutputArea({ model: this.model, rendermime: context.rendermime });
    area.addClass('jp-PrimeIPython-outputs');
    this.addWidget(area);
    this.addWidget(this.notes);
  }

  render(part: ToolView): void {
    this.code.setText(fence(inputString(part, 'code'), 'python'));
    if (part.output !== this.shownOutput) {
      this.shownOutput = part.output;
      const outputs = detail(part, 'outputs');
      this.model.clear();
      this.model.fromJSON(list(outputs) as IOutput[]);
    }
    const notes: Node[] = [];
    const notices = detail(part, 'notices');
    for (const notice of list(notices)) {
      notes.push(h('div', 'jp-PrimeTool-note', String(notice)));
    }
    if (part.state === 'output-error' && !Array.isArray(detail(part, 'outputs'))) {
      notes.push(textBlock(part.errorText ?? outputText(part), 'jp-mod-error'));
    }
    this.notes.node.replaceChildren(...notes);
  }
}

const ipython: IToolKind = {
  label: part => {
    const count = detail(part, 'executionCount');
    return typeof count === 'number' ? `IPython [${count}]` : 'IPython';
  },
  summary: part => firstLine(inputString(part, 'code')),
  open: true,
  body: context => new IPythonBody(context),
  actions: (context, part) => [
    button({
      icon: addIcon,
      title: 'Insert into notebook',
      className: 'jp-PrimeTool-insert',
      onClick: () => void context.actions.insertIntoNotebook(inputString(part(), 'code'))
    }),
    button({
      icon: consoleIcon,
      title: "Open the agent's kernel in a console",
      className: 'jp-PrimeTool-console',
      onClick: () => {
        const kernelId = detail(part(), 'kernelId') ?? context.controller.kernelId();
        if (typeof kernelId === 'string') {
          void context.actions.openKernelConsole(kernelId);
        }
      }
    })
  ]
};

/** A list from an unknown JSON value (empty when it is not one). */
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function field(value: unknown, key: string): string {
  const found: unknown = typeof value === 'object' && value !== null && key in value ? (value as Record<string, unknown>)[key] : '';
  return typeof found === 'string' ? found : '';
}

/** The edits of an Edit call as a diff, before the tool computed the real one. */
function editPreview(part: ToolView): string {
  return list(part.input?.edits)
    .map(edit => {
      const minus = field(edit, 'oldText').split('\n').map(l => `-${l}`);
      const plus = field(edit, 'newText').split('\n').map(l => `+${l}`);
      return [...minus, ...plus].join('\n');
    })
    .join('\n');
}

const edit: IToolKind = {
  label: () => 'Edit',
  summary: part => inputString(part, 'path'),
  open: true,
  body: () =>
    new DomBody(part => {
      const diff = detail(part, 'diff');
      const nodes: Node[] = [diffNode(typeof diff === 'string' ? diff : editPreview(part))];
      if (part.state === 'output-error') {
        nodes.push(textBlock(outputText(part), 'jp-mod-error'));
      }
      return nodes;
    })
};

const bash: IToolKind = {
  label: () => 'Bash',
  summary: part => firstLine(inputString(part, 'command')),
  open: true,
  body: context =>
    new CodeBody(
      context,
      part => fence(inputString(part, 'command'), 'bash'),
      part => (part.output || part.errorText ? [textBlock(outputText(part), part.state === 'output-error' ? 'jp-mod-error' : '')] : [])
    )
};

const read: IToolKind = {
  label: () => 'Read',
  summary: part => inputString(part, 'path'),
  open: false,
  body: () => new DomBody(part => (part.output || part.errorText ? [textBlock(outputText(part), '', 200)] : []))
};

const write: IToolKind = {
  label: () => 'Write',
  summary: part => inputString(part, 'path'),
  open: false,
  body: context =>
    new CodeBody(
      context,
      part => fence(inputString(part, 'content'), languageOf(inputString(part, 'path'))),
      part => (part.output || part.errorText ? [h('div', 'jp-PrimeTool-note', outputText(part))] : [])
    )
};

/** An unanswered question's note for people (`details.note`), else what the tool returned. */
function askOutcome(part: ToolView): string {
  const note = detail(part, 'note');
  return typeof note === 'string' ? note : outputText(part);
}

const ask: IToolKind = {
  label: () => 'Question',
  summary: part => firstLine(inputString(part, 'question')),
  open: true,
  body: () => new DomBody(part => (part.output ? [h('div', 'jp-PrimeTool-note', askOutcome(part))] : []))
};

/** Any other tool: its arguments as JSON and what it returned. */
export const genericKind: IToolKind = {
  label: part => part.toolName,
  summary: part => firstLine(JSON.stringify(part.input ?? {})),
  open: false,
  body: () =>
    new DomBody(part => {
      const args = part.state === 'input-streaming' ? (part.draft ?? '') : JSON.stringify(part.input ?? {}, null, 2);
      const nodes: Node[] = [textBlock(args, 'jp-PrimeTool-args')];
      if (part.output || part.errorText) {
        nodes.push(textBlock(outputText(part), part.state === 'output-error' ? 'jp-mod-error' : ''));
      }
      return nodes;
    })
};

function cellChanges(part: ToolView): ICellChange[] {
  return list(detail(part, 'changes')).flatMap(change => {
    if (typeof change !== 'object' || change === null) {
      return [];
    }
    const c = change as Record<string, unknown>;
    const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
    const int = (value: unknown): number | null => (typeof value === 'number' ? value : null);
    return [
      {
        action: field(c, 'action'),
        cellId: field(c, 'cellId'),
        cellType: field(c, 'cellType'),
        before: text(c.before),
        after: text(c.after),
        index: int(c.index) ?? 0,
        fromIndex: int(c.fromIndex),
        beforeOutputs: Array.isArray(c.beforeOutputs) ? (c.beforeOutputs as unknown[]) : null,
        beforeExecutionCount: int(c.beforeExecutionCount)
      }
    ];
  });
}

const VERBS: Readonly<Record<string, string>> = { insert: 'Inserted', replace: 'Replaced', delete: 'Deleted', move: 'Moved' };

/**
 * A card body for the notebook tools that, once its call finishes while the panel watches, shows the saved
 * notebook in the open editor (`showSavedNotebook`, saying so when it cannot) and puts a `notebook_edit`'s
 * cells under review there.
 */
class NotebookBody extends DomBody {
  private shown = false;

  constructor(
    private readonly context: IPanelContext,
    build: (part: ToolView) => Node[]
  ) {
    super(build);
  }

  render(part: ToolView): void {
    super.render(part);
    const path = detail(part, 'path');
    const live = !this.context.controller.historic.has(part.toolCallId); // came while this page followed the run
    if (part.state !== 'output-available' || !live || this.shown || typeof path !== 'string') {
      return;
    }
    this.shown = true;
    const changes = part.toolName === 'notebook_edit' ? cellChanges(part) : [];
    void this.context.actions.showSavedNotebook(path).then(outcome => {
      if (changes.length) {
        this.context.actions.markForReview(path, changes);
      }
      if (outcome === 'unsaved') {
        this.node.appendChild(
          h('div', 'jp-PrimeTool-note jp-mod-warning', `${path} has unsaved changes of yours, so it was not reloaded: save or revert it to see the agent's change.`)
        );
      }
    });
  }
}

function notebookEditNodes(context: IPanelContext, part: ToolView): Node[] {
  const path = typeof detail(part, 'path') === 'string' ? String(detail(part, 'path')) : inputString(part, 'path');
  const nodes: Node[] = [];
  for (const change of cellChanges(part)) {
    const head = h('div', 'jp-PrimeNotebookChange-head', `${VERBS[change.action] ?? change.action} ${change.cellType} cell ${change.cellId}`);
    if (change.action !== 'delete') {
      head.appendChild(
        button({ label: 'Open', title: `Open ${path} at this cell`, className: 'jp-PrimeNotebookChange-open', onClick: () => void context.actions.openNotebookCell(path, change.cellId) })
      );
    }
    nodes.push(head);
    if (change.action === 'insert' || change.action === 'delete') {
      const [sign, text] = change.action === 'insert' ? ['+', change.after ?? ''] : ['-', change.before ?? ''];
      nodes.push(diffNode(text.split('\n').map(line => `${sign}${line}`).join('\n')));
    } else if (change.action === 'replace') {
      nodes.push(diffNode(lineDiff(change.before ?? '', change.after ?? '', 'before', 'after')));
    }
  }
  const changes = cellChanges(part);
  if (changes.length && part.state === 'output-available') {
    const undo = button({
      label: 'Undo these changes',
      title: `Undo this edit's changes in ${path} (cells changed since are kept)`,
      className: 'jp-PrimeNotebookChange-undoAll',
      onClick: () =>
        void context.actions.undoChanges(path, changes).then(undone => {
          undo.replaceWith(h('div', 'jp-PrimeTool-note', `Undid ${undone} of ${changes.length} changes.`));
        })
    });
    nodes.push(undo);
  }
  if (!nodes.length || part.state === 'output-error') {
    nodes.push(textBlock(outputText(part), part.state === 'output-error' ? 'jp-mod-error' : '', 200));
  }
  return nodes;
}

const notebookEdit: IToolKind = {
  label: () => 'Notebook edit',
  summary: part => {
    const changes = cellChanges(part).length;
    return `${inputString(part, 'path')}${changes ? ` · ${changes} cell${changes === 1 ? '' : 's'}` : ''}`;
  },
  open: true,
  body: context => new NotebookBody(context, part => notebookEditNodes(context, part))
};

const notebookRun: IToolKind = {
  label: () => 'Notebook run',
  summary: part => inputString(part, 'path'),
  open: true,
  body: context =>
    new NotebookBody(context, part => (part.output || part.errorText ? [textBlock(outputText(part), part.state === 'output-error' ? 'jp-mod-error' : '', 300)] : []))
};

const notebookRead: IToolKind = {
  label: () => 'Notebook read',
  summary: part => inputString(part, 'path'),
  open: false,
  body: () => new DomBody(part => (part.output || part.errorText ? [textBlock(outputText(part), '', 200)] : []))
};

const KINDS: Readonly<Record<string, IToolKind>> = {
  'tool-NotebookEdit': notebookEdit,
  'tool-NotebookRUN': notebookRun, // `run` is a short word: upper-cased by the part-type rule (protocol/parts.py)
  'tool-NotebookRun': notebookRun,
  'tool-NotebookRead': notebookRead,
  'tool-IPython': ipython,
  'tool-Edit': edit,
  'tool-Bash': bash,
  'tool-Read': read,
  'tool-Write': write,
  'tool-ASK': ask,
  'tool-Ask': ask
};

/** The kind that shows tool parts of `type`. */
export function toolKind(type: string): IToolKind {
  return KINDS[type] ?? genericKind;
}
