/**
 * The widget of each kind of part: text (markdown), reasoning (collapsed "Thinking"), image, error
 * (with a retry action) and tool parts (cards). `partWidget` picks one; `update` shows a new state of
 * the same part.
 */
import { Panel, Widget } from '@lumino/widgets';

import type { PartView, ToolView } from '../model';
import type { Question } from '../protocol';
import { isReasoningPart, isTextPart, isToolPart } from '../wire';
import { decorateCodeBlocks } from './codeactions';
import type { ICellTarget, IPanelContext } from './context';
import { button, h } from './dom';
import { MarkdownView } from './markdown';
import { ToolCard } from './toolcard';
import { toolKind } from './toolkinds';

/** Per-message facts a part needs beyond itself. */
export interface IPartEnv {
  /** The message is still streaming. */
  readonly streaming: boolean;
  /** The message is the newest one and no run goes on (an error there can be retried). */
  readonly last: boolean;
  readonly question: (toolCallId: string) => Question | null;
  /** Whose message it is: only answers get actions on their code blocks. */
  readonly role?: 'user' | 'assistant';
  /** The failing cell this answer explains ("Explain this error"), which its code can replace. */
  readonly fix?: ICellTarget | null;
}

export interface IPartWidget extends Widget {
  /** The part type this widget shows (a new type at the same index gets a new widget). */
  readonly partType: string;
  render(part: PartView, env: IPartEnv): void;
}

class TextPartWidget extends MarkdownView implements IPartWidget {
  readonly partType = 'text';

  constructor(private readonly context: IPanelContext) {
    super(context.rendermime);
  }

  /** The text; once it is final, its code blocks get their actions (copy, insert, run, apply). */
  render(part: PartView, env: IPartEnv): void {
    if (!isTextPart(part)) {
      return;
    }
    this.setText(part.text, env.streaming);
    if (!env.streaming && env.role === 'assistant') {
      const fix = env.fix ?? null;
      void this.settled().then(() => {
        if (!this.isDisposed) {
          decorateCodeBlocks(this.node, this.context, fix);
        }
      });
    }
  }
}

/** The model's thinking, collapsed; rendered only once opened. */
class ReasoningWidget extends Panel implements IPartWidget {
  readonly partType = 'reasoning';
  private readonly head = h('div', 'jp-PrimeReasoning-head');
  private readonly markdown: MarkdownView;
  private text = '';
  private open = false;
  private streaming = false;

  constructor(context: IPanelContext) {
    super();
    this.addClass('jp-PrimeReasoning');
    this.head.setAttribute('role', 'button');
    this.head.tabIndex = 0;
    this.head.addEventListener('click', () => this.toggle());
    this.addWidget(new Widget({ node: this.head }));
    this.markdown = new MarkdownView(context.rendermime);
    this.markdown.hide();
    this.addWidget(this.markdown);
  }

  render(part: PartView, env: IPartEnv): void {
    if (!isReasoningPart(part)) {
      return;
    }
    const redacted = part.redacted === true;
    this.text = redacted ? '_The provider redacted this thinking._' : part.text;
    this.head.textContent = env.streaming ? 'Thinking…' : 'Thinking';
    this.streaming = env.streaming;
    if (this.open) {
      this.markdown.setText(this.text, this.streaming);
    }
  }

  private toggle(): void {
    this.open = !this.open;
    this.toggleClass('jp-mod-open', this.open);
    this.head.setAttribute('aria-expanded', String(this.open));
    if (this.open) {
      this.markdown.setText(this.text, this.streaming);
      this.markdown.show();
    } else {
      this.markdown.hide();
    }
  }
}

class ImageWidget extends Widget implements IPartWidget {
  readonly partType = 'image';

  render(part: PartView): void {
    if (part.type === 'image' && 'data' in part && 'mimeType' in part) {
      const img = h('img', 'jp-PrimeImage');
      img.src = `data:${part.mimeType};base64,${part.data}`;
      this.node.replaceChildren(img);
    }
  }
}

class ErrorWidget extends Widget implements IPartWidget {
  readonly partType = 'error';

  constructor(private readonly context: IPanelContext) {
    super();
    this.addClass('jp-PrimeError');
  }

  render(part: PartView, env: IPartEnv): void {
    if (part.type !== 'error' || !('message' in part) || isToolPart(part)) {
      return;
    }
    const nodes: Node[] = [h('span', 'jp-PrimeError-message', part.title ? `${part.title}: ${part.message}` : part.message)];
    if (env.last) {
      nodes.push(button({ label: 'Retry', title: 'Send the last message again', onClick: () => void this.context.controller.retry() }));
    }
    this.node.replaceChildren(...nodes);
  }
}

class ToolPartWidget extends ToolCard implements IPartWidget {
  readonly partType: string;

  constructor(context: IPanelContext, type: string, first: PartView) {
    super(context, toolKind(type), first as ToolView);
    this.partType = type;
  }

  render(part: PartView, env: IPartEnv): void {
    if (isToolPart(part)) {
      this.showPart(part, env.question(part.toolCallId));
    }
  }
}

/** A new widget for `part`. */
export function partWidget(context: IPanelContext, part: PartView): IPartWidget {
  if (isToolPart(part)) {
    return new ToolPartWidget(context, part.type, part);
  }
  switch (part.type) {
    case 'text':
      return new TextPartWidget(context);
    case 'reasoning':
      return new ReasoningWidget(context);
    case 'image':
      return new ImageWidget();
    default:
      return new ErrorWidget(context);
  }
}
