/**
 * The "Prime" sidebar panel. For now it only shows the result of the
 * version handshake; the chat view replaces its body later.
 */
import { Widget } from '@lumino/widgets';

import { InfoResult, fetchInfo } from './client';

/** Shown when `prime/api/info` answers 404. */
export const NOT_INSTALLED_MESSAGE =
  'The prime_jupyter server extension is not installed or not enabled';

/** Text for one handshake outcome. */
export function describeInfo(result: InfoResult): string {
  switch (result.kind) {
    case 'ok':
      return `prime_jupyter server ${result.info.version}`;
    case 'missing':
      return NOT_INSTALLED_MESSAGE;
    case 'error':
      return `Could not reach the prime_jupyter server extension: ${result.message}`;
  }
}

/** Left-sidebar widget whose body reports the server extension's status. */
export class PrimePanel extends Widget {
  private readonly status: HTMLParagraphElement;

  constructor() {
    super();
    this.id = 'prime-jupyter-panel';
    this.addClass('jp-PrimePanel');
    this.status = document.createElement('p');
    this.status.className = 'jp-PrimePanel-status';
    this.status.textContent = 'Connecting to the prime_jupyter server extension...';
    this.node.appendChild(this.status);
  }

  /** Run the handshake and show its outcome. */
  async refresh(): Promise<void> {
    const result = await fetchInfo();
    this.status.textContent = describeInfo(result);
    this.status.dataset.state = result.kind;
  }
}
