/**
 * A tool call as a collapsible card: a header (status, tool, a one-line summary, actions) and a body
 * that a tool kind renders (`toolkinds.ts`). The body is only built while the card is open, and a
 * pending question asked by this tool call is answered inside the card.
 */
import { Panel, Widget } from '@lumino/widgets';

import type { ToolView } from '../model';
import type { Question } from '../protocol';
import type { IPanelContext } from './context';
import { h } from './dom';
import { QuestionView } from './question';

/** The body of a card: shows the current state of its tool part. */
export interface IToolBody extends Widget {
  render(part: ToolView): void;
}

/** How one kind of tool is shown. */
export interface IToolKind {
  /** Header label, e.g. `IPython`. */
  label(part: ToolView): string;
  /** One line after the label (first line of code, the command, the path). */
  summary(part: ToolView): string;
  /** Whether the card starts open. */
  readonly open: boolean;
  body(context: IPanelContext): IToolBody;
  /** Buttons in the header (e.g. "Insert into notebook"). */
  actions?(context: IPanelContext, part: () => ToolView): HTMLElement[];
}

const STATE_TEXT: Readonly<Record<ToolView['state'], string>> = {
  'input-streaming': 'writing',
  'input-available': 'running',
  'output-available': 'done',
  'output-error': 'failed'
};

export class ToolCard extends Panel {
  private readonly head = h('div', 'jp-PrimeTool-head');
  private readonly labelNode = h('span', 'jp-PrimeTool-label');
  private readonly summaryNode = h('span', 'jp-PrimeTool-summary');
  private readonly stateNode = h('span', 'jp-PrimeTool-state');
  private readonly bodyHost = new Panel();
  private body: IToolBody | null = null;
  private question: QuestionView | null = null;
  private part: ToolView;

  constructor(
    private readonly context: IPanelContext,
    private readonly kind: IToolKind,
    part: ToolView
  ) {
    super();
    this.part = part;
    this.addClass('jp-PrimeTool');
    this.node.dataset.toolType = part.type;
    this.head.setAttribute('role', 'button');
    this.head.tabIndex = 0;
    this.head.append(h('span', 'jp-PrimeTool-chevron'), this.labelNode, this.summaryNode, this.stateNode);
    const actions = h('span', 'jp-PrimeTool-actions');
    actions.append(...(kind.actions?.(context, () => this.part) ?? []));
    this.head.appendChild(actions);
    this.head.addEventListener('click', () => this.toggle());
    this.head.addEventListener('keydown', event => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.toggle();
      }
    });
    this.addWidget(new Widget({ node: this.head }));
    this.bodyHost.addClass('jp-PrimeTool-body');
    this.addWidget(this.bodyHost);
  }

  get isOpen(): boolean {
    return this.context.toggled.get(this.part.toolCallId) ?? this.kind.open;
  }

  /** Show the part's current state, and the question its call asked if one is pending. */
  showPart(part: ToolView, question: Question | null): void {
    this.part = part;
    this.node.dataset.state = part.state;
    this.node.dataset.toolCallId = part.toolCallId;
    this.labelNode.textContent = this.kind.label(part);
    this.summaryNode.textContent = this.kind.summary(part);
    this.stateNode.textContent = STATE_TEXT[part.state];
    this.setQuestion(question);
    this.showBody();
  }

  private toggle(): void {
    this.context.toggled.set(this.part.toolCallId, !this.isOpen);
    this.showBody();
  }

  private showBody(): void {
    const open = this.isOpen;
    this.toggleClass('jp-mod-open', open);
    this.head.setAttribute('aria-expanded', String(open));
    if (!open) {
      this.bodyHost.hide();
      return;
    }
    if (!this.body) {
      this.body = this.kind.body(this.context);
      this.bodyHost.addWidget(this.body);
    }
    this.bodyHost.show();
    this.body.render(this.part);
  }

  private setQuestion(question: Question | null): void {
    if (!question) {
      this.question?.dispose();
      this.question = null;
      return;
    }
    if (!this.question) {
      this.question = new QuestionView((id, answer) => void this.context.controller.answer(id, answer));
      this.insertWidget(1, this.question);
    }
    this.question.setQuestion(question);
  }
}
