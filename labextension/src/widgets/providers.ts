/**
 * The provider form: pick Anthropic, OpenAI or an OpenAI-compatible server (Ollama, vLLM, LM Studio, a
 * gateway), paste a key, optionally a base URL and a model, press Test (one small request, the
 * provider's exact error when it fails) and Save. The server stores the key in the agent dir's
 * `auth.json` (mode 0600) and never sends it back: the form only learns whether a key is set and where
 * it comes from (`chat/providers`, `protocol/providers.py`).
 */
import { Widget } from '@lumino/widgets';

import type { ChatController } from '../controller';
import type { ProviderSetupRequest, ProviderStatus, ProvidersResponse } from '../protocol';
import { button, h } from './dom';

type Kind = ProviderSetupRequest['kind'];

const KINDS: ReadonlyArray<readonly [Kind, string]> = [
  ['anthropic', 'Anthropic'],
  ['openai', 'OpenAI'],
  ['openai-compatible', 'OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter…)']
];

/** What the base URL and model fields suggest when left empty. */
const PLACEHOLDERS: Readonly<Record<Kind, { readonly url: string; readonly model: string }>> = {
  anthropic: { url: "Anthropic's own (leave empty), or a proxy's URL", model: 'claude-sonnet-5-5' },
  openai: { url: "OpenAI's own (leave empty), or a proxy's URL", model: 'gpt-5.4' },
  'openai-compatible': { url: 'http://localhost:11434/v1', model: 'e.g. qwen3:8b' }
};

const LOCAL = 'local';

export class ProviderForm extends Widget {
  private readonly kind = h('select', 'jp-PrimeProviders-kind');
  private readonly name = input('text', 'jp-PrimeProviders-name', LOCAL);
  private readonly key = input('password', 'jp-PrimeProviders-key', 'paste the API key');
  private readonly keyNote = h('div', 'jp-PrimeProviders-note');
  private readonly baseUrl = input('url', 'jp-PrimeProviders-baseUrl', '');
  private readonly model = input('text', 'jp-PrimeProviders-model', '');
  private readonly models = h('datalist');
  private readonly result = h('div', 'jp-PrimeProviders-result');
  private readonly where = h('div', 'jp-PrimeProviders-where');
  private readonly nameRow: HTMLElement;
  private readonly testButton: HTMLButtonElement;
  private readonly saveButton: HTMLButtonElement;
  private status: ProvidersResponse | null = null;
  private busy = false;

  constructor(
    private readonly controller: ChatController,
    private readonly onClose: () => void
  ) {
    super();
    this.addClass('jp-PrimeProviders');
    this.kind.setAttribute('aria-label', 'Provider');
    for (const [value, label] of KINDS) {
      const option = h('option', '', label);
      option.value = value;
      this.kind.appendChild(option);
    }
    this.models.id = `jp-PrimeProviders-models-${Math.random().toString(36).slice(2)}`;
    this.model.setAttribute('list', this.models.id);
    this.key.autocomplete = 'off';
    this.kind.addEventListener('change', () => this.fill());
    this.name.addEventListener('change', () => this.fill());
    this.testButton = button({ label: 'Test', title: 'Send one small request with these values (nothing is saved)', className: 'jp-PrimeProviders-test', onClick: () => void this.test() });
    this.saveButton = button({ label: 'Save', title: 'Save the key, URL and model; new sessions use this model', className: 'jp-PrimeProviders-save jp-mod-accept', onClick: () => void this.save() });
    const close = button({ label: 'Close', title: 'Close the provider form', className: 'jp-PrimeProviders-close', onClick: () => this.onClose() });
    this.nameRow = row('Name', this.name);
    this.result.setAttribute('role', 'status');
    this.node.append(
      h('div', 'jp-PrimeProviders-title', 'Set up a provider'),
      row('Provider', this.kind),
      this.nameRow,
      row('API key', this.key),
      this.keyNote,
      row('Base URL', this.baseUrl),
      row('Model', this.model),
      this.models,
      h('div', 'jp-PrimeProviders-buttons'),
      this.result,
      this.where
    );
    this.node.querySelector('.jp-PrimeProviders-buttons')?.append(this.testButton, this.saveButton, close);
  }

  /** Read the providers again (each time the form opens) and fill the fields for the kind shown. */
  async load(): Promise<void> {
    this.show_('', null);
    try {
      this.status = await this.controller.client.providers();
    } catch (error: unknown) {
      this.show_(`The providers cannot be read: ${errorText(error)}`, 'error');
      return;
    }
    const configured = this.status.providers.find(p => p.keySet && p.kind !== 'openai-compatible');
    this.kind.value = configured?.kind ?? 'anthropic';
    this.fill();
    const editable = this.status.editable;
    for (const field of [this.kind, this.name, this.key, this.baseUrl, this.model, this.saveButton, this.testButton]) {
      field.disabled = !editable;
    }
    const dir = this.status.agentDir;
    this.where.textContent = editable
      ? `Saved in ${dir}: the key in auth.json (readable by you only), a URL or server in models.json, the model in settings.json.`
      : 'The administrator of this server configures its providers; the form is read-only.';
  }

  private fill(): void {
    const kind = this.kind.value as Kind;
    this.nameRow.hidden = kind !== 'openai-compatible';
    const current = this.current();
    this.key.value = '';
    this.key.placeholder = current?.keySet ? 'a key is set: leave empty to keep it' : kind === 'openai-compatible' ? 'none needed for a local server' : 'paste the API key';
    this.keyNote.textContent = keyNote(current);
    this.baseUrl.value = current?.baseUrl ?? '';
    this.baseUrl.placeholder = PLACEHOLDERS[kind].url;
    const defaultModel = this.status?.defaultModel;
    this.model.value = defaultModel && current && defaultModel.provider === current.provider ? defaultModel.id : current?.models?.[0] ?? '';
    this.model.placeholder = PLACEHOLDERS[kind].model;
    this.models.replaceChildren(...(current?.models ?? []).map(id => Object.assign(h('option'), { value: id })));
  }

  private current(): ProviderStatus | undefined {
    const kind = this.kind.value as Kind;
    const name = kind === 'openai-compatible' ? this.name.value.trim() || LOCAL : kind;
    return this.status?.providers.find(p => p.provider === name);
  }

  private request(): ProviderSetupRequest {
    const kind = this.kind.value as Kind;
    return {
      kind,
      provider: kind === 'openai-compatible' ? this.name.value.trim() || LOCAL : null,
      key: this.key.value.trim() || null,
      baseUrl: this.baseUrl.value.trim(),
      model: this.model.value.trim() || null,
      makeDefault: true
    };
  }

  private async test(): Promise<void> {
    await this.run('Testing…', async () => {
      const reply = await this.controller.client.testProvider(this.request());
      const name = `${reply.model.provider}/${reply.model.id}`;
      if (reply.ok) {
        this.show_(`${name} answered: “${reply.answer ?? ''}”. Save to use it.`, 'ok');
      } else {
        this.show_(`${name} failed: ${reply.error ?? 'no answer'}`, 'error');
      }
    });
  }

  private async save(): Promise<void> {
    await this.run('Saving…', async () => {
      this.status = await this.controller.client.saveProvider(this.request());
      await this.controller.providerSaved();
      const model = this.status.defaultModel;
      this.fill();
      this.show_(model ? `Saved. New sessions use ${model.provider}/${model.id}.` : 'Saved.', 'ok');
    });
  }

  private async run(label: string, work: () => Promise<void>): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    this.testButton.disabled = this.saveButton.disabled = true;
    this.show_(label, 'busy');
    try {
      await work();
    } catch (error: unknown) {
      this.show_(errorText(error), 'error');
    } finally {
      this.busy = false;
      this.testButton.disabled = this.saveButton.disabled = this.status?.editable === false;
    }
  }

  private show_(text: string, state: 'ok' | 'error' | 'busy' | null): void {
    this.result.textContent = text;
    this.result.dataset.state = state ?? '';
    this.result.hidden = !text;
  }
}

function keyNote(status: ProviderStatus | undefined): string {
  if (!status?.keySet) {
    return '';
  }
  const where = `The key in use comes from ${status.keySource ?? 'the configuration'}`;
  return status.keyFromEnvironment ? `${where}; it wins over a key saved here until it is unset.` : `${where}.`;
}

function input(type: string, className: string, placeholder: string): HTMLInputElement {
  const node = h('input', `jp-PrimeProviders-input ${className}`);
  node.type = type;
  node.placeholder = placeholder;
  node.spellcheck = false;
  return node;
}

function row(label: string, field: HTMLElement): HTMLElement {
  const node = h('label', 'jp-PrimeProviders-row');
  node.append(h('span', 'jp-PrimeProviders-label', label), field);
  return node;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
