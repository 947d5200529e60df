/**
 * The conversation: one widget per message, re-rendered only when its message (or a question asked
 * by one of its tool calls) changed. A long session shows its newest messages first and renders
 * older ones when the user scrolls up to them; the view sticks to the bottom while the user is there.
 */
import { Panel, PanelLayout, Widget } from '@lumino/widgets';

import { MessageView, ViewState } from '../model';
import type { Question } from '../protocol';
import { firstText, isToolPart } from '../wire';
import type { IPanelContext } from './context';
import { button, h } from './dom';
import { enlargeable, openLightbox } from './lightbox';
import { rewindTo } from './rewind';
import { IPartEnv, IPartWidget, partWidget } from './parts';

/** How many messages are rendered at first, and added each time the user scrolls to the top. */
export const WINDOW = 40;

class MessageWidget extends Panel {
  private shown: MessageView | null = null;
  private questionKey = '';
  private last = false;
  private readonly parts = new Panel();
  private readonly actions = h('div', 'jp-PrimeMessage-actions');
  private readonly marker = h('div', 'jp-PrimeMessage-marker');

  constructor(private readonly context: IPanelContext) {
    super();
    this.addClass('jp-PrimeMessage');
    this.parts.addClass('jp-PrimeMessage-parts');
    this.addWidget(new Widget({ node: this.actions }));
    this.addWidget(this.parts);
    this.marker.hidden = true;
    this.addWidget(new Widget({ node: this.marker }));
  }

  render(message: MessageView, env: IPartEnv, questionKey: string): void {
    // `last` changes when a run ends, the message often not (an error's Retry comes with it).
    if (message === this.shown && questionKey === this.questionKey && env.last === this.last) {
      return;
    }
    const previous = this.shown;
    this.shown = message;
    this.questionKey = questionKey;
    this.last = env.last;
    this.node.dataset.role = message.role;
    this.node.dataset.messageId = message.id;
    this.toggleClass('jp-mod-streaming', message.streaming);
    this.toggleClass('jp-mod-pending', message.pending);
    this.toggleClass('jp-mod-failed', message.failed === true);
    if (
      previous?.role !== message.role ||
      previous.pending !== message.pending ||
      previous.failed !== message.failed ||
      previous.id !== message.id
    ) {
      this.renderActions(message);
    }
    this.renderParts(message, previous, env);
    this.renderMarker(message);
  }

  /** Under an answer the user stopped: "Stopped"; under a message that could not be sent: "Not sent". */
  private renderMarker(message: MessageView): void {
    const stopped = message.role === 'assistant' && message.stopReason === 'aborted' && !message.streaming;
    const text = message.failed ? 'Not sent' : stopped ? 'Stopped' : null;
    this.marker.hidden = text === null;
    this.marker.dataset.kind = message.failed ? 'failed' : stopped ? 'stopped' : '';
    this.marker.textContent = text ?? '';
  }

  private renderParts(message: MessageView, previous: MessageView | null, env: IPartEnv): void {
    const layout = this.parts.layout as PanelLayout;
    message.parts.forEach((part, i) => {
      let widget = layout.widgets[i] as unknown as IPartWidget | undefined;
      const type = part.type;
      if (widget && widget.partType !== type) {
        widget.dispose();
        widget = undefined;
      }
      if (!widget) {
        widget = partWidget(this.context, part);
        this.parts.insertWidget(i, widget);
      } else if (previous?.parts[i] === part && previous.streaming === message.streaming && !isToolPart(part) && part.type !== 'error') {
        return;
      }
      widget.render(part, env);
    });
    while (layout.widgets.length > message.parts.length) {
      layout.widgets[layout.widgets.length - 1].dispose();
    }
  }

  private renderActions(message: MessageView): void {
    const nodes: HTMLElement[] = [h('span', 'jp-PrimeMessage-role', message.role === 'user' ? 'You' : 'Prime')];
    if (message.failed) {
      const controller = this.context.controller;
      nodes.push(
        button({ label: 'Retry', title: 'Send this message again', className: 'jp-PrimeMessage-retry', onClick: () => void controller.retryFailed(message.key) }),
        button({ label: 'Edit', title: 'Take this message back into the prompt', className: 'jp-PrimeMessage-edit', onClick: () => controller.editFailed(message.key) })
      );
    } else if (message.role === 'user' && !message.pending) {
      nodes.push(
        button({
          label: 'Fork',
          title: 'Start a new session from before this message (its text comes back to edit)',
          className: 'jp-PrimeMessage-fork',
          onClick: () => void this.context.controller.fork(message.id)
        })
      );
      if (this.context.controller.canRewind) {
        nodes.push(
          button({
            label: 'Rewind',
            title: "Undo the agent's file and notebook changes since this message, and go on from before it",
            className: 'jp-PrimeMessage-rewind',
            onClick: () => void rewindTo(this.context.controller, message.id)
          })
        );
      }
    }
    if (message.role === 'assistant') {
      nodes.push(
        button({
          label: 'Copy',
          title: 'Copy the answer as markdown',
          onClick: () => void navigator.clipboard.writeText(firstText(message.parts) ?? '')
        })
      );
    }
    this.actions.replaceChildren(...nodes);
  }
}

export class MessageList extends Panel {
  private readonly rendered = new Map<string, MessageWidget>();
  private readonly earlier = h('div', 'jp-PrimeMessages-earlier');
  private readonly welcome = h('div', 'jp-PrimeMessages-welcome');
  private sessionId: string | null = null;
  private start = 0;
  private stick = true;
  private userScrolled = 0;
  private last: ViewState | null = null;
  private readonly observer: IntersectionObserver;
  private readonly resize: ResizeObserver;

  constructor(private readonly context: IPanelContext) {
    super();
    this.addClass('jp-PrimeMessages');
    this.welcome.append(
      h('p', 'jp-PrimeMessages-welcomeTitle', 'Ask Prime about your data, your code or your notebooks.'),
      h('p', '', 'It runs Python in its own Jupyter kernel and shows you what it ran and what came out.'),
      h('p', 'jp-PrimeMessages-keys', 'Enter sends · Shift+Enter new line · while it works: Enter steers, Alt+Enter queues a follow-up, Escape stops')
    );
    this.earlier.appendChild(button({ label: 'Show earlier messages', title: 'Show earlier messages', onClick: () => this.showEarlier() }));
    this.addWidget(new Widget({ node: this.earlier }));
    this.addWidget(new Widget({ node: this.welcome }));
    // Only the user's own scrolling decides whether the view follows new content: blocks that get
    // laid out as they come into view (content-visibility) move the scroll position too.
    const intent = (): void => {
      this.userScrolled = performance.now();
    };
    for (const type of ['wheel', 'touchmove', 'keydown', 'pointerdown']) {
      this.node.addEventListener(type, intent, { passive: true });
    }
    this.node.addEventListener('scroll', () => {
      if (performance.now() - this.userScrolled < 1000) {
        this.stick = this.node.scrollHeight - this.node.scrollTop - this.node.clientHeight < 48;
      }
    });
    this.observer = new IntersectionObserver(entries => {
      if (entries.some(e => e.isIntersecting) && this.start > 0) {
        this.showEarlier();
      }
    }, { root: this.node });
    this.observer.observe(this.earlier);
    this.resize = new ResizeObserver(() => this.keepBottom());
    this.node.addEventListener('click', event => {
      if (enlargeable(event.target)) {
        void openLightbox(event.target);
      }
    });
  }

  dispose(): void {
    this.observer.disconnect();
    this.resize.disconnect();
    super.dispose();
  }

  render(state: ViewState): void {
    this.last = state;
    if (state.sessionId !== this.sessionId) {
      this.sessionId = state.sessionId;
      this.node.dataset.sessionId = state.sessionId ?? '';
      this.clear();
      this.start = Math.max(0, state.messages.length - WINDOW);
      this.stick = true;
    }
    this.start = Math.min(this.start, state.messages.length);
    const newest = state.messages[state.messages.length - 1];
    if (newest?.pending && !this.rendered.has(newest.key)) {
      this.stick = true; // the user just sent a message: show it and what follows
    }
    this.earlier.hidden = this.start === 0;
    this.welcome.hidden = state.messages.length > 0;
    this.renderWindow(state);
    this.keepBottom();
  }

  private renderWindow(state: ViewState): void {
    const wanted = state.messages.slice(this.start);
    const keys = new Set(wanted.map(m => m.key));
    for (const [key, widget] of this.rendered) {
      if (!keys.has(key)) {
        widget.dispose();
        this.rendered.delete(key);
      }
    }
    const byTool = new Map<string, Question>();
    for (const q of state.questions) {
      if (q.toolCallId) {
        byTool.set(q.toolCallId, q);
      }
    }
    const layout = this.layout as PanelLayout;
    const running = state.runId !== null;
    const fixes = this.context.controller.fixes.byMessage(state);
    wanted.forEach((message, i) => {
      let widget = this.rendered.get(message.key);
      if (!widget) {
        widget = new MessageWidget(this.context);
        widget.node.addEventListener('load', () => this.keepBottom(), true);
        this.rendered.set(message.key, widget);
        this.resize.observe(widget.node);
      }
      if (layout.widgets[i + 2] !== widget) {
        this.insertWidget(i + 2, widget);
      }
      const last = this.start + i === state.messages.length - 1 && !running;
      const fix = fixes.get(message.key) ?? null;
      const env: IPartEnv = { streaming: message.streaming, last, question: id => byTool.get(id) ?? null, fix, role: message.role };
      widget.render(message, env, questionKey(message, byTool));
    });
  }

  private showEarlier(): void {
    if (this.start === 0 || !this.last) {
      return;
    }
    const before = this.node.scrollHeight - this.node.scrollTop;
    this.start = Math.max(0, this.start - WINDOW);
    this.earlier.hidden = this.start === 0;
    this.renderWindow(this.last);
    this.node.scrollTop = this.node.scrollHeight - before;
  }

  private keepBottom(): void {
    if (this.stick) {
      this.node.scrollTop = this.node.scrollHeight;
    }
  }

  private clear(): void {
    for (const widget of this.rendered.values()) {
      widget.dispose();
    }
    this.rendered.clear();
  }
}

/** Ids of the pending questions asked by the message's tool calls. */
function questionKey(message: MessageView, byTool: ReadonlyMap<string, Question>): string {
  if (byTool.size === 0) {
    return '';
  }
  const ids: string[] = [];
  for (const part of message.parts) {
    const question = isToolPart(part) ? byTool.get(part.toolCallId) : undefined;
    if (question) {
      ids.push(question.id);
    }
  }
  return ids.join(',');
}
