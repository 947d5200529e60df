/**
 * The panel's smaller views: the banner (server extension missing, no provider configured), the
 * notices (retry, compaction, notifications, errors with a retry action), the queue of steering and
 * follow-up messages, questions not asked by a tool call, and the footer (tokens, cost, context,
 * status lines and widget blocks).
 */
import { Panel, Widget } from '@lumino/widgets';

import type { ChatController } from '../controller';
import { usageLine } from '../format';
import type { Notice, ViewState } from '../model';
import type { Question } from '../protocol';
import { button, h } from './dom';
import { QuestionView } from './question';

/** How to configure a provider, shown when no model has an API key. */
export const NO_PROVIDER_MESSAGE =
  'No LLM provider is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment of ' +
  '`jupyter lab` and restart it, store a key in ~/.prime/agent/auth.json, or declare a local ' +
  'OpenAI-compatible server (Ollama, vLLM) in ~/.prime/agent/models.json.';

/** The same, where the panel can set one up itself (capability `provider-setup`). */
export const NO_PROVIDER_SETUP_MESSAGE =
  'No LLM provider is configured yet. Set one up here (Anthropic, OpenAI, or a local OpenAI-compatible ' +
  'server such as Ollama or vLLM), or set ANTHROPIC_API_KEY or OPENAI_API_KEY before starting `jupyter lab`.';

export class Banner extends Widget {
  /** `onSetUp` opens the provider form (offered when no provider is configured and the server has it). */
  constructor(
    private readonly controller: ChatController,
    private readonly onSetUp: () => void = () => undefined
  ) {
    super();
    this.addClass('jp-PrimeBanner');
  }

  render(): void {
    const handshake = this.controller.handshake;
    let text: string | null = null;
    let level = 'warning';
    let setUp = false;
    if (handshake === null) {
      text = 'Connecting to the prime_jupyter server extension…';
      level = 'info';
    } else if (handshake.kind !== 'ok') {
      text = handshake.message;
    } else if (this.controller.modelsError) {
      text = `The models cannot be read: ${this.controller.modelsError}. Fix the file, then press Retry.`;
      level = 'error';
    } else if (this.controller.models && !this.controller.models.models.some(m => m.available !== false)) {
      setUp = this.controller.canSetUpProviders;
      text = setUp ? NO_PROVIDER_SETUP_MESSAGE : NO_PROVIDER_MESSAGE;
    }
    this.node.hidden = text === null;
    this.node.dataset.level = level;
    this.node.dataset.state = handshake?.kind ?? 'connecting';
    if (text !== null && this.node.firstChild?.textContent !== text) {
      const nodes: Node[] = [h('span', 'jp-PrimeBanner-text', text)];
      if (handshake && handshake.kind !== 'ok') {
        nodes.push(button({ label: 'Retry', title: 'Check the server extension again', onClick: () => void this.controller.start() }));
      } else if (this.controller.modelsError) {
        nodes.push(button({ label: 'Retry', title: 'Read the models again', onClick: () => void this.controller.refreshModels() }));
      } else if (setUp) {
        nodes.push(button({ label: 'Set up a provider', title: 'Pick a provider, paste a key, test it', className: 'jp-PrimeBanner-setUp', onClick: this.onSetUp }));
      }
      this.node.replaceChildren(...nodes);
    }
  }
}

export class Notices extends Widget {
  private shown: readonly Notice[] | null = null;

  constructor(private readonly controller: ChatController) {
    super();
    this.addClass('jp-PrimeNotices');
    this.node.setAttribute('aria-live', 'polite');
  }

  render(notices: readonly Notice[]): void {
    if (notices === this.shown) {
      return;
    }
    this.shown = notices;
    this.node.replaceChildren(...notices.map(n => this.notice(n)));
  }

  private notice(notice: Notice): HTMLElement {
    const node = h('div', `jp-PrimeNotice jp-mod-${notice.level}`);
    node.dataset.key = notice.key;
    node.appendChild(h('span', 'jp-PrimeNotice-text', notice.text));
    if (notice.action === 'retry') {
      node.appendChild(button({ label: 'Retry', title: 'Send the last message again', onClick: () => void this.controller.retry() }));
    }
    node.appendChild(button({ label: '×', title: 'Dismiss', onClick: () => this.controller.dismiss(notice.key) }));
    return node;
  }
}

export class QueueView extends Widget {
  private shown: [readonly string[], readonly string[]] | null = null;

  constructor() {
    super();
    this.addClass('jp-PrimeQueue');
  }

  render(state: ViewState): void {
    if (this.shown && this.shown[0] === state.steering && this.shown[1] === state.followUp) {
      return;
    }
    this.shown = [state.steering, state.followUp];
    const items = [
      ...state.steering.map(text => this.item('steer', text)),
      ...state.followUp.map(text => this.item('follow-up', text))
    ];
    this.node.hidden = items.length === 0;
    this.node.replaceChildren(...items);
  }

  private item(kind: string, text: string): HTMLElement {
    const node = h('div', 'jp-PrimeQueue-item');
    node.dataset.kind = kind;
    node.append(h('span', 'jp-PrimeQueue-kind', kind), h('span', 'jp-PrimeQueue-text', text));
    return node;
  }
}

/** Questions that no tool call of the conversation asked (those are answered in their card). */
export class LooseQuestions extends Panel {
  private readonly views = new Map<string, QuestionView>();

  constructor(private readonly controller: ChatController) {
    super();
    this.addClass('jp-PrimeQuestions');
  }

  render(state: ViewState, attached: (question: Question) => boolean): void {
    const loose = state.questions.filter(q => !attached(q));
    const ids = new Set(loose.map(q => q.id));
    for (const [id, view] of this.views) {
      if (!ids.has(id)) {
        view.dispose();
        this.views.delete(id);
      }
    }
    for (const question of loose) {
      let view = this.views.get(question.id);
      if (!view) {
        view = new QuestionView((id, answer) => void this.controller.answer(id, answer));
        this.views.set(question.id, view);
        this.addWidget(view);
      }
      view.setQuestion(question);
    }
  }
}

export class Footer extends Widget {
  private readonly usage = h('div', 'jp-PrimeFooter-usage');
  private readonly extra = h('div', 'jp-PrimeFooter-extra');

  constructor() {
    super();
    this.addClass('jp-PrimeFooter');
    this.node.append(this.extra, this.usage);
  }

  render(state: ViewState, connection: string): void {
    this.usage.textContent = usageLine(state.usage, state.contextTokens, state.contextWindow);
    this.node.dataset.connection = connection;
    const lines: HTMLElement[] = Object.entries(state.statuses).map(([key, text]) => {
      const node = h('div', 'jp-PrimeFooter-status', text);
      node.dataset.key = key;
      return node;
    });
    for (const [key, block] of Object.entries(state.widgets)) {
      const node = h('pre', 'jp-PrimeFooter-widget', block.join('\n'));
      node.dataset.key = key;
      lines.push(node);
    }
    this.extra.replaceChildren(...lines);
  }
}
