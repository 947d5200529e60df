/**
 * The user's shell commands of the open session (`!cmd` in the terminal app), one card each: `$ command`,
 * the output as it arrives (the panel redraws at most once per animation frame), and how it ended. A
 * running command can be stopped from here (an abort of the session). Only a card whose run changed is
 * redrawn.
 */
import { Widget } from '@lumino/widgets';

import type { IShellRun } from '../shells';
import { button, h } from './dom';

export class ShellRunsView extends Widget {
  private shown: readonly IShellRun[] | null = null;
  private readonly cards = new Map<string, { run: IShellRun; node: HTMLElement }>();

  constructor(private readonly onStop: () => void) {
    super();
    this.addClass('jp-PrimeShells');
    this.node.hidden = true;
  }

  render(runs: readonly IShellRun[]): void {
    if (runs === this.shown) {
      return;
    }
    this.shown = runs;
    const nodes = runs.map(run => this.card(run));
    for (const id of [...this.cards.keys()]) {
      if (!runs.some(r => r.executionId === id)) {
        this.cards.delete(id);
      }
    }
    this.node.hidden = nodes.length === 0;
    this.node.replaceChildren(...nodes);
  }

  private card(run: IShellRun): HTMLElement {
    const known = this.cards.get(run.executionId);
    if (known?.run === run) {
      return known.node;
    }
    const node = known?.node ?? h('div', 'jp-PrimeShell');
    node.dataset.executionId = run.executionId;
    node.dataset.state = run.end === null ? 'running' : failed(run) ? 'failed' : 'done';
    const header = h('div', 'jp-PrimeShell-header');
    header.append(h('span', 'jp-PrimeShell-command', `$ ${run.command.split('\n')[0]}`));
    if (!run.includeInContext) {
      header.append(h('span', 'jp-PrimeShell-private', 'not sent to the agent'));
    }
    if (run.end === null) {
      const stop = button({ label: 'Stop', title: 'Stop the command', className: 'jp-PrimeShell-stop', onClick: this.onStop });
      header.append(stop);
    }
    const parts: HTMLElement[] = [header];
    if (run.cut && run.end === null) {
      parts.push(h('div', 'jp-PrimeShell-note', '… only the end of the output is shown'));
    }
    if (run.output || run.end?.error) {
      const output = h('pre', 'jp-PrimeShell-output', run.end?.error ?? run.output);
      parts.push(output);
      requestAnimationFrame(() => (output.scrollTop = output.scrollHeight));
    }
    parts.push(h('div', 'jp-PrimeShell-status', status(run)));
    node.replaceChildren(...parts);
    this.cards.set(run.executionId, { run, node });
    return node;
  }
}

function failed(run: IShellRun): boolean {
  return run.end !== null && (run.end.error !== null || run.end.cancelled || (run.end.exitCode ?? 0) !== 0);
}

function status(run: IShellRun): string {
  const end = run.end;
  if (end === null) {
    return 'running…';
  }
  if (end.error !== null) {
    return end.cancelled ? 'stopped' : 'not run';
  }
  const how = end.cancelled ? 'cancelled' : `exit code ${end.exitCode ?? 0}`;
  return end.truncated && end.fullOutputPath ? `${how} · output cut, all of it in ${end.fullOutputPath}` : how;
}
