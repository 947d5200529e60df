/**
 * The prompt and its controls. Keys: Enter sends; Shift+Enter is a new line; Enter while a run goes
 * on steers it; Alt+Enter queues a follow-up; Escape aborts. The model and thinking-level pickers are
 * fed by `chat/models`.
 */
import { stopIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import type { ChatController, SendMode } from '../controller';
import type { ModelInfo } from '../protocol';
import { button, h } from './dom';

const IDLE_HINT = 'Ask Prime… (Enter sends, Shift+Enter for a new line)';
const RUNNING_HINT = 'Steer it (Enter), queue a follow-up (Alt+Enter), stop (Escape)';

export class Composer extends Widget {
  readonly prompt = h('textarea', 'jp-PrimeComposer-prompt');
  private readonly modelPicker = h('select', 'jp-PrimeComposer-model');
  private readonly thinkingPicker = h('select', 'jp-PrimeComposer-thinking');
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private modelsShown: unknown = null;
  private modelKey = '';

  constructor(private readonly controller: ChatController) {
    super();
    this.addClass('jp-PrimeComposer');
    this.prompt.rows = 2;
    this.prompt.placeholder = IDLE_HINT;
    this.prompt.setAttribute('aria-label', 'Message to Prime');
    this.prompt.addEventListener('keydown', event => this.onKey(event));
    this.prompt.addEventListener('input', () => this.grow());
    this.modelPicker.title = 'Model';
    this.thinkingPicker.title = 'Thinking level';
    this.modelPicker.addEventListener('change', () => this.pickModel());
    this.thinkingPicker.addEventListener('change', () => this.pickModel());
    this.send = button({ label: 'Send', title: 'Send (Enter)', className: 'jp-PrimeComposer-send jp-mod-accept', onClick: () => this.submit('prompt') });
    this.stop = button({ icon: stopIcon, label: 'Stop', title: 'Stop the run (Escape)', className: 'jp-PrimeComposer-stop', onClick: () => void controller.abort() });
    const controls = h('div', 'jp-PrimeComposer-controls');
    controls.append(this.modelPicker, this.thinkingPicker, h('span', 'jp-PrimeComposer-spacer'), this.stop, this.send);
    this.node.append(this.prompt, controls);
  }

  /** Put text in the prompt (e.g. a forked message, or a notebook cell to ask about) and focus it. */
  setText(text: string): void {
    this.prompt.value = text;
    this.grow();
    this.focus();
  }

  focus(): void {
    this.prompt.focus();
    this.prompt.setSelectionRange(this.prompt.value.length, this.prompt.value.length);
  }

  render(): void {
    const running = this.controller.running;
    this.prompt.placeholder = running ? RUNNING_HINT : IDLE_HINT;
    this.stop.hidden = !running;
    this.send.textContent = running ? 'Steer' : 'Send';
    this.node.classList.toggle('jp-mod-running', running);
    this.renderPickers();
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      void this.controller.abort();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.submit(event.altKey ? 'followUp' : 'prompt');
    }
  }

  private submit(mode: SendMode): void {
    const text = this.prompt.value;
    if (!text.trim()) {
      return;
    }
    this.prompt.value = '';
    this.grow();
    void this.controller.send(text, mode);
  }

  private grow(): void {
    this.prompt.style.height = 'auto';
    this.prompt.style.height = `${Math.min(this.prompt.scrollHeight, 240)}px`;
  }

  private renderPickers(): void {
    const models = this.controller.models?.models ?? [];
    const current = this.controller.currentModel();
    const level = this.controller.state.thinkingLevel ?? this.controller.pendingThinking ?? 'off';
    const key = `${current?.provider}/${current?.id}:${level}`;
    if (models === this.modelsShown && key === this.modelKey) {
      return;
    }
    this.modelsShown = models;
    this.modelKey = key;
    const usable = models.filter(m => m.available !== false);
    const keyless = models.filter(m => m.available === false);
    this.modelPicker.replaceChildren(...usable.map(m => modelOption(m, m === current)));
    if (keyless.length) {
      const group = h('optgroup');
      group.label = 'No API key configured';
      group.append(...keyless.map(m => modelOption(m, m === current)));
      this.modelPicker.appendChild(group);
    }
    if (!current) {
      this.modelPicker.prepend(option('', usable.length ? 'Default model' : 'No model available', true));
    }
    const levels = current?.reasoning ? current.thinkingLevels ?? ['off'] : ['off'];
    this.thinkingPicker.replaceChildren(...levels.map(l => option(l, `thinking: ${l}`, l === level)));
    this.thinkingPicker.disabled = levels.length < 2;
  }

  private pickModel(): void {
    const [provider, ...rest] = this.modelPicker.value.split('/');
    const id = rest.join('/');
    const model = provider && id ? { provider, id } : this.controller.currentModel();
    if (model) {
      void this.controller.setModel({ provider: model.provider, id: model.id }, this.thinkingPicker.value || null);
    }
  }
}

function option(value: string, label: string, selected: boolean): HTMLOptionElement {
  const node = h('option', '', label);
  node.value = value;
  node.selected = selected;
  return node;
}

function modelOption(model: ModelInfo, selected: boolean): HTMLOptionElement {
  const available = model.available !== false;
  const node = option(`${model.provider}/${model.id}`, model.name, selected);
  node.disabled = !available;
  node.title = `${model.provider}/${model.id} · context ${model.contextWindow}`;
  return node;
}
