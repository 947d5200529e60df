/**
 * The "Prime" panel: header, session list, conversation, questions, notices, queue, prompt and
 * footer, stacked. It renders the controller's state when told (at most once per animation frame)
 * and holds no state of its own beyond what is open or closed.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { addIcon, consoleIcon, launchIcon, listIcon, settingsIcon } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';

import type { ChatController } from './controller';
import type { ViewState } from './model';
import type { SessionSummary } from './protocol';
import { firstText } from './wire';
import type { IJupyterActions, IPanelContext } from './widgets/context';
import { Composer } from './widgets/composer';
import { button, h } from './widgets/dom';
import { MessageList } from './widgets/messagelist';
import { ProviderForm } from './widgets/providers';
import { SessionList } from './widgets/sessions';
import { ShellRunsView } from './widgets/shellruns';
import { Banner, Footer, LooseQuestions, Notices, QueueView } from './widgets/status';

export interface IPrimePanelOptions {
  readonly controller: ChatController;
  readonly rendermime: IRenderMimeRegistry;
  readonly actions: IJupyterActions;
  /** Shown as a header button when given (the sidebar panel opens a copy in the main area). */
  readonly openInMainArea?: () => void;
}

export class PrimePanel extends Panel {
  readonly controller: ChatController;
  readonly composer: Composer;
  private readonly title_ = h('span', 'jp-PrimePanel-title', 'Prime');
  private readonly connection = h('span', 'jp-PrimePanel-connection');
  private readonly consoleButton: HTMLButtonElement;
  private readonly sessions: SessionList;
  private readonly banner: Banner;
  private readonly providerForm: ProviderForm;
  private readonly providersButton: HTMLButtonElement;
  private readonly messages: MessageList;
  private readonly shells: ShellRunsView;
  private readonly questions: LooseQuestions;
  private readonly notices: Notices;
  private readonly queue = new QueueView();
  private readonly footer = new Footer();
  private sessionsOpen = false;

  constructor(options: IPrimePanelOptions) {
    super();
    this.addClass('jp-PrimePanel');
    this.controller = options.controller;
    const context: IPanelContext = {
      rendermime: options.rendermime,
      controller: options.controller,
      actions: options.actions,
      toggled: new Map()
    };
    this.providersButton = button({
      icon: settingsIcon,
      title: 'Providers and keys',
      className: 'jp-PrimePanel-providers',
      onClick: () => this.toggleProviders()
    });
    this.consoleButton = button({
      icon: consoleIcon,
      title: "Open the agent's kernel in a console",
      className: 'jp-PrimePanel-console',
      onClick: () => {
        const kernelId = this.controller.kernelId();
        if (kernelId) {
          void options.actions.openKernelConsole(kernelId);
        }
      }
    });
    this.addWidget(this.header(options));
    this.sessions = new SessionList(this.controller, () => this.toggleSessions(false));
    this.sessions.hide();
    this.banner = new Banner(this.controller, () => this.toggleProviders(true));
    this.providerForm = new ProviderForm(this.controller, () => this.toggleProviders(false));
    this.providerForm.hide();
    this.messages = new MessageList(context);
    this.shells = new ShellRunsView(() => void this.controller.stopShell());
    this.questions = new LooseQuestions(this.controller);
    this.notices = new Notices(this.controller);
    this.composer = new Composer(this.controller);
    for (const widget of [this.sessions, this.banner, this.providerForm, this.messages, this.shells, this.questions, this.notices, this.queue, this.composer, this.footer]) {
      this.addWidget(widget);
    }
    this.controller.changed.connect(this.render, this);
    this.render();
  }

  dispose(): void {
    this.controller.changed.disconnect(this.render, this);
    super.dispose();
  }

  /** Show or hide the session list (refreshing it when it opens). */
  toggleSessions(open = !this.sessionsOpen): void {
    this.sessionsOpen = open;
    this.sessions.setHidden(!open);
    this.toggleClass('jp-mod-sessionsOpen', open);
    if (open) {
      void this.controller.refreshSessions();
      // Marked busy at once (not at the next frame), so nothing reads the list before it is fresh.
      this.sessions.render(this.controller.sessions, this.controller.state.sessionId);
    }
  }

  /** Show or hide the provider form (reading the providers again when it opens). */
  toggleProviders(open = this.providerForm.isHidden): void {
    this.providerForm.setHidden(!open);
    if (open) {
      void this.providerForm.load();
    }
  }

  private header(options: IPrimePanelOptions): Widget {
    const node = h('div', 'jp-PrimePanel-header');
    const buttons = [
      button({ icon: listIcon, title: 'Sessions', className: 'jp-PrimePanel-sessionsButton', onClick: () => this.toggleSessions() }),
      button({ icon: addIcon, title: 'New session', className: 'jp-PrimePanel-new', onClick: () => void this.controller.newSession() }),
      this.consoleButton,
      this.providersButton
    ];
    if (options.openInMainArea) {
      buttons.push(button({ icon: launchIcon, title: 'Open in the main area', onClick: options.openInMainArea }));
    }
    node.append(this.connection, this.title_, h('span', 'jp-PrimePanel-spacer'), ...buttons);
    return new Widget({ node });
  }

  private render(): void {
    const controller = this.controller;
    const state = controller.state;
    const summary = controller.sessions.find(s => s.sessionId === state.sessionId);
    this.title_.textContent = sessionTitle(state, summary);
    this.connection.dataset.status = controller.streamStatus;
    this.connection.title = `Live updates: ${controller.streamStatus}`;
    this.node.dataset.running = String(controller.running);
    this.consoleButton.disabled = controller.kernelId() === null;
    this.providersButton.hidden = !controller.canSetUpProviders;
    this.sessions.render(controller.sessions, state.sessionId);
    this.banner.render();
    this.messages.render(state);
    this.shells.render(controller.shells);
    const toolCalls = new Set<string>();
    for (const message of state.messages.slice(-200)) {
      for (const part of message.parts) {
        if ('toolCallId' in part) {
          toolCalls.add(part.toolCallId);
        }
      }
    }
    this.questions.render(state, q => q.toolCallId !== undefined && q.toolCallId !== null && toolCalls.has(q.toolCallId));
    this.notices.render(state.notices);
    this.queue.render(state);
    this.composer.render();
    this.footer.render(state, controller.streamStatus);
  }
}

/** The session's name, else its first message, else what the session list calls it. */
function sessionTitle(state: ViewState, summary: SessionSummary | undefined): string {
  if (!state.sessionId) {
    return 'Prime';
  }
  const first = state.messages.find(m => m.role === 'user');
  const text = first ? firstText(first.parts)?.split('\n')[0].slice(0, 80) : null;
  return state.name ?? summary?.name ?? text ?? summary?.title ?? 'New session';
}
