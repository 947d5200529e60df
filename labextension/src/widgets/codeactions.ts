/**
 * Actions on the code blocks of an answer: copy, insert into the notebook (below the active cell),
 * run (insert, then execute), and, in the answer to "Explain this error", apply the code to the
 * failing cell: a replace, shown as a diff to accept or reject first.
 *
 * The bar goes before each rendered `<pre>` (never inside it, so the code's text stays the code); it is
 * added once a block is rendered and again if the block renders anew.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { lineDiff } from '../linediff';
import type { ICellTarget, IPanelContext } from './context';
import { diffNode } from './diff';
import { button, h } from './dom';

const BAR = 'jp-PrimeCodeActions';
/** Languages a notebook's Python kernel runs (an unlabelled block counts as Python). */
const PYTHON = new Set(['', 'python', 'py', 'python3', 'ipython', 'ipython3']);

/** Give every code block under `root` its action bar; `fix` is the failing cell the answer is about. */
export function decorateCodeBlocks(root: HTMLElement, context: IPanelContext, fix: ICellTarget | null): void {
  const key = fix ? `${fix.path}#${fix.cellId}` : '-';
  for (const pre of root.querySelectorAll('pre')) {
    if (pre.dataset.primeActions === key && pre.previousElementSibling?.classList.contains(BAR)) {
      continue;
    }
    if (pre.previousElementSibling?.classList.contains(BAR)) {
      pre.previousElementSibling.remove();
    }
    pre.dataset.primeActions = key;
    pre.before(actionBar(pre, context, fix));
  }
}

function codeOf(pre: HTMLElement): { code: string; language: string } {
  const code = pre.querySelector('code');
  const language = /(?:^|\s)language-(\S+)/.exec(code?.className ?? '')?.[1]?.toLowerCase() ?? '';
  return { code: (code ?? pre).textContent?.replace(/\n$/, '') ?? '', language };
}

function actionBar(pre: HTMLElement, context: IPanelContext, fix: ICellTarget | null): HTMLElement {
  const bar = h('div', BAR);
  const { language } = codeOf(pre);
  const code = (): string => codeOf(pre).code;
  const copy = button({
    label: 'Copy',
    title: 'Copy the code',
    className: 'jp-PrimeCodeActions-copy',
    onClick: () => {
      void navigator.clipboard.writeText(code()).then(() => {
        copy.dataset.copied = 'true';
        copy.lastElementChild!.textContent = 'Copied';
      });
    }
  });
  bar.appendChild(copy);
  if (PYTHON.has(language)) {
    bar.append(
      button({
        label: 'Insert',
        title: 'Insert into the notebook, below the active cell',
        className: 'jp-PrimeCodeActions-insert',
        onClick: () => void context.actions.insertIntoNotebook(code())
      }),
      button({
        label: 'Run',
        title: 'Insert into the notebook below the active cell, and run it',
        className: 'jp-PrimeCodeActions-run',
        onClick: () => void context.actions.runInNotebook(code())
      })
    );
    if (fix) {
      bar.appendChild(
        button({
          label: 'Apply to cell',
          title: `Replace the failing cell of ${fix.path} with this code (shows the change first)`,
          className: 'jp-PrimeCodeActions-apply',
          onClick: () => void applyFix(context, fix, code())
        })
      );
    }
  }
  return bar;
}

/** Show the replace as a diff; on Accept, put the code in the cell. */
async function applyFix(context: IPanelContext, target: ICellTarget, code: string): Promise<void> {
  const current = context.actions.cellSource(target);
  if (current === null) {
    await showDialog({
      title: 'The cell is gone',
      body: `Open ${target.path} again (the cell that failed was closed or deleted), or insert the code instead.`,
      buttons: [Dialog.okButton()]
    });
    return;
  }
  const body = h('div', 'jp-PrimeApplyFix');
  body.append(h('div', 'jp-PrimeApplyFix-path', `${target.path}: the failing cell`), diffNode(lineDiff(current, code, 'cell', 'fix')));
  const result = await showDialog({
    title: 'Apply the fix to the cell?',
    body: new Widget({ node: body }),
    buttons: [Dialog.cancelButton({ label: 'Reject' }), Dialog.okButton({ label: 'Accept' })]
  });
  if (result.button.accept) {
    context.actions.replaceCell(target, code);
  }
}
