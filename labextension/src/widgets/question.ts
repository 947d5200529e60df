/**
 * A pending question (confirm / select / input), answered in place, with the time left to answer.
 * Answering or dismissing posts `chat/question`; the question goes away when `question-resolved`
 * arrives (from this client or any other).
 */
import { Widget } from '@lumino/widgets';

import { timeLeft } from '../format';
import type { Question, QuestionAnswer } from '../protocol';
import { button, h } from './dom';

/** The option id of an approval's rejection (`runtime/approvals.py`). */
const REJECT = 'reject_once';

function rejection(words: string): QuestionAnswer {
  const text = words.trim();
  return text ? { kind: 'select', optionIds: [REJECT], text } : { kind: 'select', optionIds: [REJECT] };
}

export class QuestionView extends Widget {
  private question: Question | null = null;
  private timer: number | null = null;
  private readonly clock = h('span', 'jp-PrimeQuestion-time');

  constructor(private readonly onAnswer: (id: string, answer: QuestionAnswer | null) => void) {
    super();
    this.addClass('jp-PrimeQuestion');
  }

  /** Show `question` (rebuilt only when it is another question). */
  setQuestion(question: Question): void {
    if (this.question?.id === question.id) {
      return;
    }
    this.question = question;
    this.node.dataset.questionId = question.id;
    this.node.dataset.kind = question.kind;
    this.node.replaceChildren(this.head(question), ...this.body(question));
    this.tick();
  }

  protected onAfterAttach(): void {
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  protected onBeforeDetach(): void {
    if (this.timer !== null) {
      window.clearInterval(this.timer);
      this.timer = null;
    }
  }

  private tick(): void {
    if (this.question) {
      this.clock.textContent = timeLeft(this.question, Date.now());
    }
  }

  private head(question: Question): HTMLElement {
    const head = h('div', 'jp-PrimeQuestion-head');
    head.append(h('span', 'jp-PrimeQuestion-title', question.title), this.clock);
    return head;
  }

  private body(question: Question): HTMLElement[] {
    const nodes: HTMLElement[] = [];
    if (question.message) {
      nodes.push(h('div', 'jp-PrimeQuestion-message', question.message));
    }
    const actions = h('div', 'jp-PrimeQuestion-actions');
    if (question.kind === 'confirm') {
      actions.append(
        this.answerButton('Yes', { kind: 'confirm', confirmed: true }, 'jp-mod-accept'),
        this.answerButton('No', { kind: 'confirm', confirmed: false })
      );
    } else if (question.kind === 'select') {
      nodes.push(this.options(question, actions));
    } else {
      nodes.push(this.input(question, actions));
    }
    actions.append(button({ label: 'Dismiss', title: 'Do not answer', onClick: () => this.send(null) }));
    nodes.push(actions);
    return nodes;
  }

  private answerButton(label: string, answer: QuestionAnswer, className = ''): HTMLButtonElement {
    return button({ label, title: label, className, onClick: () => this.send(answer) });
  }

  private options(question: Question, actions: HTMLElement): HTMLElement {
    const list = h('div', 'jp-PrimeQuestion-options');
    const options = question.options ?? [];
    if (!question.multiple) {
      const reason = options.some(option => option.id === REJECT) ? this.reasonField() : null;
      for (const option of options) {
        const choice =
          option.id === REJECT && reason
            ? button({
                label: option.label,
                title: option.description ?? option.label,
                onClick: () => this.send(rejection(reason.value))
              })
            : this.answerButton(option.label, { kind: 'select', optionIds: [option.id] });
        choice.title = option.description ?? option.label;
        list.appendChild(choice);
      }
      if (reason) {
        list.appendChild(reason);
      }
      return list;
    }
    const boxes = options.map(option => {
      const label = h('label', 'jp-PrimeQuestion-option');
      const box = h('input');
      box.type = 'checkbox';
      box.value = option.id;
      label.append(box, document.createTextNode(` ${option.label}`));
      list.appendChild(label);
      return box;
    });
    const submit = () => this.send({ kind: 'select', optionIds: boxes.filter(b => b.checked).map(b => b.value) });
    actions.appendChild(button({ label: 'Submit', title: 'Submit the choices', className: 'jp-mod-accept', onClick: submit }));
    return list;
  }

  /** An approval's reject comes with optional words the agent reads (the answer's `text`). */
  private reasonField(): HTMLInputElement {
    const field = h('input', 'jp-PrimeQuestion-input jp-PrimeQuestion-reason jp-mod-styled');
    field.type = 'text';
    field.placeholder = 'Reason for rejecting (optional; the agent reads it)';
    return field;
  }

  private input(question: Question, actions: HTMLElement): HTMLElement {
    const field = h('input', 'jp-PrimeQuestion-input jp-mod-styled');
    field.type = 'text';
    field.placeholder = question.placeholder ?? '';
    field.value = question.default ?? '';
    const submit = () => this.send({ kind: 'input', text: field.value });
    field.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        submit();
      }
    });
    actions.appendChild(button({ label: 'Submit', title: 'Send the answer', className: 'jp-mod-accept', onClick: submit }));
    return field;
  }

  private send(answer: QuestionAnswer | null): void {
    if (!this.question) {
      return;
    }
    this.node.querySelectorAll('button, input').forEach(node => node.setAttribute('disabled', 'true'));
    this.onAnswer(this.question.id, answer);
  }
}
