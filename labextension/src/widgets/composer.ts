/**
 * The prompt and its controls. Keys: Enter sends; Shift+Enter is a new line; Enter while a run goes
 * on steers it; Alt+Enter queues a follow-up; Escape aborts (what was still queued comes back here).
 * The model and thinking-level pickers are fed by `chat/models`: the first choice names the server's
 * default, the last lets the user type any `provider/model-id`. Typing `/` opens the command menu
 * (`commandmenu.ts`).
 */
import { InputDialog, showErrorMessage } from '@jupyterlab/apputils';
import { stopIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import type { ChatController, SendMode } from '../controller';
import type { ModelInfo, ModelRef } from '../protocol';
import { CommandMenu } from './commandmenu';
import { button, h } from './dom';

const IDLE_HINT = 'Ask Prime… (Enter sends, Shift+Enter for a new line)';
const RUNNING_HINT = 'Steer it (Enter), queue a follow-up (Alt+Enter), stop (Escape)';
/** The picker's values for "the server's default" and "type a model in". */
const DEFAULT_CHOICE = '';
const OTHER_CHOICE = '\u0000other';
/** What a typed-in model must look like. */
const MODEL_REF = /^([^/\s]+)\/(\S+)$/;

export class Composer extends Widget {
  readonly prompt = h('textarea', 'jp-PrimeComposer-prompt');
  private readonly modelPicker = h('select', 'jp-PrimeComposer-model');
  private readonly thinkingPicker = h('select', 'jp-PrimeComposer-thinking');
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private modelsShown: unknown = null;
  private modelKey = '';
  private readonly menu: CommandMenu;
  private menuSession: string | null = null;

  constructor(private readonly controller: ChatController) {
    super();
    this.addClass('jp-PrimeComposer');
    this.prompt.rows = 2;
    this.prompt.placeholder = IDLE_HINT;
    this.prompt.setAttribute('aria-label', 'Message to Prime');
    this.prompt.addEventListener('keydown', event => this.onKey(event));
    this.prompt.addEventListener('input', () => {
      this.grow();
      this.menu.update(this.prompt.value);
    });
    this.menu = new CommandMenu(
      () => controller.commands(),
      text => this.setText(text)
    );
    this.modelPicker.title = 'Model';
    this.thinkingPicker.title = 'Thinking level';
    this.modelPicker.addEventListener('change', () => this.pickModel());
    this.thinkingPicker.addEventListener('change', () => this.pickThinking());
    this.send = button({ label: 'Send', title: 'Send (Enter)', className: 'jp-PrimeComposer-send jp-mod-accept', onClick: () => this.submit('prompt') });
    this.stop = button({ icon: stopIcon, label: 'Stop', title: 'Stop the run (Escape)', className: 'jp-PrimeComposer-stop', onClick: () => void controller.abort() });
    const controls = h('div', 'jp-PrimeComposer-controls');
    controls.append(this.modelPicker, this.thinkingPicker, h('span', 'jp-PrimeComposer-spacer'), this.stop, this.send);
    this.node.append(this.menu.node, this.prompt, controls);
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
    const draft = this.controller.takeDraft();
    if (draft) {
      const typed = this.prompt.value.trim();
      this.setText(typed ? `${draft}\n\n${this.prompt.value}` : draft);
    }
    const sessionId = this.controller.state.sessionId;
    if (sessionId !== this.menuSession) {
      this.menuSession = sessionId;
      this.menu.forget(); // another session may have other templates (its folder's)
    }
    const running = this.controller.running;
    this.prompt.placeholder = running ? RUNNING_HINT : IDLE_HINT;
    this.stop.hidden = !running;
    this.send.textContent = running ? 'Steer' : 'Send';
    this.node.classList.toggle('jp-mod-running', running);
    this.renderPickers();
  }

  private onKey(event: KeyboardEvent): void {
    if (this.menu.key(event)) {
      event.preventDefault();
    } else if (event.key === 'Escape') {
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
    this.menu.close();
    if (/^\/reload(\s|$)/.test(text.trim())) {
      this.menu.forget(); // the templates and skills are read again
    }
    void this.controller.send(text, mode);
  }

  private grow(): void {
    this.prompt.style.height = 'auto';
    this.prompt.style.height = `${Math.min(this.prompt.scrollHeight, 240)}px`;
  }

  private renderPickers(force = false): void {
    const controller = this.controller;
    const models = controller.models?.models ?? [];
    const ref = controller.currentRef();
    const current = controller.currentModel();
    const fallback = controller.defaultModel();
    const onDefault = controller.onDefaultModel();
    const level = controller.currentThinking();
    const key = `${refText(ref)}:${refText(fallback)}:${onDefault}:${level}:${controller.modelsError}`;
    if (!force && models === this.modelsShown && key === this.modelKey) {
      return;
    }
    this.modelsShown = models;
    this.modelKey = key;
    const usable = models.filter(m => m.available !== false);
    const keyless = models.filter(m => m.available === false);
    const selected = (m: ModelInfo): boolean => !onDefault && m === current;
    const choices: HTMLElement[] = [option(DEFAULT_CHOICE, defaultLabel(fallback, usable.length > 0, controller.modelsError), onDefault)];
    if (ref && !current && !onDefault) {
      choices.push(option(refText(ref), refText(ref), true)); // typed in, or no longer listed
    }
    choices.push(...usable.map(m => modelOption(m, selected(m))));
    if (keyless.length) {
      const group = h('optgroup');
      group.label = 'No API key configured';
      group.append(...keyless.map(m => modelOption(m, selected(m))));
      choices.push(group);
    }
    choices.push(option(OTHER_CHOICE, 'Other model…', false));
    this.modelPicker.replaceChildren(...choices);
    this.modelPicker.title = ref ? `Model: ${refText(ref)}` : 'Model';
    const levels = current?.reasoning ? current.thinkingLevels ?? ['off'] : ['off'];
    this.thinkingPicker.replaceChildren(...levels.map(l => option(l, `thinking: ${l}`, l === level)));
    this.thinkingPicker.disabled = levels.length < 2;
  }

  /** A thinking level for the model shown (on the server's default, that model stays the default). */
  private pickThinking(): void {
    if (this.modelPicker.value === DEFAULT_CHOICE && this.thinkingPicker.value) {
      void this.controller.setThinking(this.thinkingPicker.value);
    } else {
      this.pickModel();
    }
  }

  private pickModel(): void {
    const value = this.modelPicker.value;
    const thinking = this.thinkingPicker.value || null;
    if (value === DEFAULT_CHOICE) {
      void this.controller.useDefaultModel();
    } else if (value === OTHER_CHOICE) {
      void this.askModel(thinking);
    } else {
      const model = parseRef(value) ?? this.controller.currentRef();
      if (model) {
        void this.controller.setModel(model, thinking);
      }
    }
  }

  /** Ask for a model that is not in the list, as `provider/model-id`. */
  private async askModel(thinking: string | null): Promise<void> {
    const result = await InputDialog.getText({
      title: 'Use another model',
      label: 'Model, as provider/model-id',
      placeholder: 'anthropic/claude-sonnet-5-5',
      text: refText(this.controller.currentRef()),
      okLabel: 'Use'
    });
    const text = result.value?.trim() ?? '';
    const model = result.button.accept ? parseRef(text) : null;
    if (result.button.accept && !model) {
      void showErrorMessage('Not a model', `"${text}" is not a model: write provider/model-id, e.g. anthropic/claude-sonnet-5-5.`);
    }
    if (model) {
      await this.controller.setModel(model, thinking);
    }
    this.renderPickers(true);
  }
}

function refText(ref: ModelRef | null): string {
  return ref ? `${ref.provider}/${ref.id}` : '';
}

function parseRef(text: string): ModelRef | null {
  const match = MODEL_REF.exec(text);
  return match ? { provider: match[1], id: match[2] } : null;
}

/** The first choice of the picker: the server's default, named. */
function defaultLabel(model: ModelRef | null, usable: boolean, error: string | null): string {
  if (error) {
    return 'models.json is broken';
  }
  if (model) {
    return `Default (${refText(model)})`;
  }
  return usable ? 'Default model' : 'No model available';
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
