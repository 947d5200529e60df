/**
 * The session list: title, last activity and state (running / idle / saved), with new, rename,
 * delete, fork and switch. Renaming and deleting ask through Lab's own dialogs.
 */
import { Dialog, InputDialog, showDialog } from '@jupyterlab/apputils';
import { addIcon, closeIcon, copyIcon, editIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import type { ChatController } from '../controller';
import { relativeTime } from '../format';
import type { SessionSummary } from '../protocol';
import { button, h } from './dom';

const STATUS_TEXT: Readonly<Record<SessionSummary['status'], string>> = {
  running: 'running',
  idle: 'idle',
  saved: 'saved'
};

export class SessionList extends Widget {
  private shown: SessionSummary[] | null = null;
  private current: string | null = null;

  constructor(
    private readonly controller: ChatController,
    private readonly onPicked: () => void
  ) {
    super();
    this.addClass('jp-PrimeSessions');
    this.node.setAttribute('role', 'listbox');
    this.node.setAttribute('aria-label', 'Sessions');
  }

  render(sessions: SessionSummary[], current: string | null): void {
    this.node.setAttribute('aria-busy', String(this.controller.sessionsLoading));
    if (sessions === this.shown && current === this.current) {
      return;
    }
    this.shown = sessions;
    this.current = current;
    const head = h('div', 'jp-PrimeSessions-head');
    head.append(
      h('span', 'jp-PrimeSessions-title', 'Sessions'),
      button({ icon: addIcon, label: 'New', title: 'New session', onClick: () => void this.pick(() => this.controller.newSession()) })
    );
    const now = Date.now();
    const items = sessions.map(s => this.item(s, s.sessionId === current, now));
    if (items.length === 0) {
      items.push(h('div', 'jp-PrimeSessions-empty', 'No sessions yet.'));
    }
    this.node.replaceChildren(head, ...items);
  }

  private item(session: SessionSummary, active: boolean, now: number): HTMLElement {
    const item = h('div', `jp-PrimeSessions-item${active ? ' jp-mod-active' : ''}`);
    item.setAttribute('role', 'option');
    item.setAttribute('aria-selected', String(active));
    item.dataset.sessionId = session.sessionId;
    item.dataset.status = session.status;
    item.tabIndex = 0;
    const text = h('div', 'jp-PrimeSessions-text');
    text.append(
      h('div', 'jp-PrimeSessions-name', session.title),
      h('div', 'jp-PrimeSessions-meta', `${relativeTime(session.updatedAt, now)} · ${session.messageCount ?? 0} messages`)
    );
    const badge = h('span', `jp-PrimeSessions-status jp-mod-${session.status}`, STATUS_TEXT[session.status]);
    const actions = h('span', 'jp-PrimeSessions-actions');
    actions.append(
      button({ icon: editIcon, title: 'Rename', onClick: () => void this.rename(session) }),
      button({ icon: copyIcon, title: 'Fork (a copy of the whole session)', onClick: () => void this.fork(session) }),
      button({ icon: closeIcon, title: 'Delete', onClick: () => void this.remove(session) })
    );
    item.append(text, badge, actions);
    const open = () => void this.pick(() => this.controller.openSession(session.sessionId));
    item.addEventListener('click', open);
    item.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        open();
      }
    });
    return item;
  }

  private async pick(action: () => Promise<void>): Promise<void> {
    this.onPicked();
    await action();
  }

  private async rename(session: SessionSummary): Promise<void> {
    const result = await InputDialog.getText({ title: 'Rename session', text: session.name ?? session.title });
    const name = result.value?.trim();
    if (result.button.accept && name) {
      await this.controller.rename(session.sessionId, name);
    }
  }

  private async fork(session: SessionSummary): Promise<void> {
    await this.pick(async () => {
      if (this.controller.state.sessionId !== session.sessionId) {
        await this.controller.openSession(session.sessionId);
      }
      await this.controller.fork(null);
    });
  }

  private async remove(session: SessionSummary): Promise<void> {
    const result = await showDialog({
      title: 'Delete session',
      body: `Delete "${session.title}"? Its transcript file is removed.`,
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Delete' })]
    });
    if (result.button.accept) {
      await this.controller.remove(session.sessionId);
    }
  }
}
