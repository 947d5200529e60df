/**
 * `ChatController`: the panel's glue between the client and the widgets.
 *
 * It follows the open session (`SessionView`: its view state, kept current from its SSE frames) and does
 * what the user asks: sessions, sending, retrying, aborting, answering, picking a model. The NDJSON
 * response of `POST chat` is read only for a refusal (`error`): SSE is the one source of the
 * conversation, so no frame is ever applied twice.
 */
import { InfoResult, PrimeClient } from './client';
import { describe, reasonOf } from './errortext';
import {
  addLocalMessage,
  dismissNotice,
  emptyState,
  lastUserText,
  latestKernelId,
  nothingSent,
  refuseLocal,
  takeFailed
} from './model';
import { isDefault, modelEntry, storePick, storedPick } from './modelpick';
import type {
  ChatFrame,
  CommandEntry,
  ModelInfo,
  ModelRef,
  ModelsResponse,
  QuestionAnswer,
  RewindResult,
  SessionSummary
} from './protocol';
import { FixTargets } from './notebooksessions';
import { CURRENT_SESSION_KEY, IControllerOptions, SessionView } from './sessionview';

export type { IControllerOptions } from './sessionview';

/** How a message is sent: a new prompt, steering the run going on, or a follow-up after it. */
export type SendMode = 'prompt' | 'steer' | 'followUp';

/** The server capability of sessions tied to a notebook, run in its kernel (`protocol/version.py`). */
const NOTEBOOK_SESSIONS = 'notebook-sessions';
/** The server capability that lets `chat/command export` write notebooks (`protocol/version.py`). */
export const EXPORT_IPYNB = 'export-ipynb';

/** The server capability of the provider form's routes (`chat/providers`, `protocol/version.py`). */
export const PROVIDER_SETUP = 'provider-setup';

/** The server capability of `GET chat/commands`, the one command registry (`protocol/version.py`). */
const COMMANDS = 'commands';

/** The server capability of `chat/command rewind` (`protocol/version.py`). */
export const REWIND = 'rewind';

/** The frames read from `POST chat`'s response (SSE carries the conversation). */
const REFUSAL: ReadonlySet<ChatFrame['type']> = new Set(['error']);

export class ChatController extends SessionView {
  private lastSent: string | null = null;
  private localCount = 0;

  handshake: InfoResult | null = null;
  sessions: SessionSummary[] = [];
  /** A session list request is under way (the list shows `aria-busy` meanwhile). */
  sessionsLoading = false;
  private sessionsAsked = 0;
  models: ModelsResponse | null = null;
  /** Why `chat/models` failed (a broken `models.json`, as the server words it), or null. */
  modelsError: string | null = null;
  /**
   * The model and thinking level the user picked in this browser, for new sessions (kept across page
   * loads); null: new sessions get the server's default (`models.current`), whatever the open session uses.
   */
  pendingModel: ModelRef | null;
  pendingThinking: string | null;
  /** Text to put back in the composer (queued messages taken back by Escape, a failed message to edit). */
  draft: string | null = null;
  /** The failing cells that "Explain this error" answers may fix. */
  readonly fixes = new FixTargets();
  private aborting = false;

  constructor(client: PrimeClient, options: IControllerOptions = {}) {
    super(client, options);
    const pick = storedPick();
    this.pendingModel = pick.model;
    this.pendingThinking = pick.thinking;
  }

  get ready(): boolean {
    return this.handshake?.kind === 'ok';
  }

  /** Handshake, models, sessions, then the session open before the page was reloaded. */
  async start(sessionId?: string): Promise<void> {
    this.handshake = await this.client.info();
    this.changedNow();
    if (!this.ready) {
      return;
    }
    await Promise.all([this.refreshModels(), this.refreshSessions()]);
    const restore = sessionId ?? (this.options.persist ? window.localStorage.getItem(CURRENT_SESSION_KEY) : null);
    if (restore && this.sessions.some(s => s.sessionId === restore)) {
      await this.openSession(restore);
    }
  }

  // -- sessions ---------------------------------------------------------------------------------

  /**
   * Read the session list again. Requests overlap (a new session, a run's end and opening the list each
   * ask): only the newest one's answer is shown, so an earlier, slower answer never puts back a list from
   * before the last prompt; `sessionsLoading` is true until the newest has answered.
   */
  async refreshSessions(): Promise<void> {
    const asked = ++this.sessionsAsked;
    this.sessionsLoading = true;
    this.notify();
    const sessions = await this.client.sessions().catch(() => null);
    if (asked !== this.sessionsAsked) {
      return;
    }
    this.sessions = sessions ?? this.sessions;
    this.sessionsLoading = false;
    this.notify();
  }

  /** The models, and the one new sessions get (the open session's own model is in the state). */
  async refreshModels(): Promise<void> {
    try {
      this.models = await this.client.models();
      this.modelsError = null;
    } catch (error: unknown) {
      this.modelsError = describe(error);
    }
    this.notify();
  }

  /**
   * A fresh session with the model picked in this browser, else the server's default, shown at once;
   * with `notebookPath`, tied to that notebook (its code runs in the notebook's kernel) on a server that
   * can (capability `notebook-sessions`).
   */
  async newSession(notebookPath?: string): Promise<void> {
    const offered = this.handshake?.kind === 'ok' ? this.handshake.info.capabilities : [];
    const tie = notebookPath && offered.includes(NOTEBOOK_SESSIONS) ? { notebookPath } : {};
    const response = await this.client.newSession({
      model: this.pendingModel,
      thinkingLevel: this.pendingThinking,
      ...tie
    });
    const unsent = this.state.sessionId ? [] : this.state.messages.filter(m => m.failed);
    // No frame announces a new session's model and level: the response says what it runs at.
    const { model, thinkingLevel } = response;
    this.show({ session: response.session, messages: response.messages ?? [], cursor: 0, model, thinkingLevel });
    if (unsent.length) {
      this.state = { ...this.state, messages: [...this.state.messages, ...unsent] };
    }
    void this.refreshSessions();
  }

  async rename(sessionId: string, name: string): Promise<void> {
    await this.client.rename(sessionId, name);
    await this.refreshSessions();
  }

  async remove(sessionId: string): Promise<void> {
    await this.client.remove(sessionId);
    if (sessionId === this.state.sessionId) {
      this.closeStream();
      this.state = emptyState();
      window.localStorage.removeItem(CURRENT_SESSION_KEY);
    }
    await this.refreshSessions();
  }

  /** Fork the open session before the user message `entryId` (its text comes back to edit), or clone it. */
  async fork(entryId: string | null): Promise<string | null> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      return null;
    }
    const result = await this.client.command(
      entryId ? { sessionId, command: 'fork', entryId, position: 'before' } : { sessionId, command: 'clone' }
    );
    if (result.command !== 'fork' || !result.sessionId) {
      return null;
    }
    await this.openSession(result.sessionId);
    void this.refreshSessions();
    return result.selectedText ?? null;
  }

  /** The commands a prompt can name in the open session (capability `commands`; none from an older server). */
  async commands(): Promise<CommandEntry[]> {
    const offered = this.handshake?.kind === 'ok' ? this.handshake.info.capabilities : [];
    return offered.includes(COMMANDS) ? this.client.commands(this.state.sessionId) : [];
  }

  /** Whether the server can rewind (capability `rewind`): the "Rewind" action shows only then. */
  get canRewind(): boolean {
    return this.handshake?.kind === 'ok' && this.handshake.info.capabilities.includes(REWIND);
  }

  /**
   * Rewind the open session to before its user message `entryId`: the server puts back the files and
   * notebooks the agent changed since and goes on from before the message (every client resyncs); the
   * message's text comes back to the composer. Answers the server's report; throws what it refused.
   */
  async rewind(entryId: string): Promise<RewindResult | null> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      return null;
    }
    const result = await this.client.command({ sessionId, command: 'rewind', entryId });
    if (result.command !== 'rewind') {
      return null;
    }
    if (result.editorText) {
      this.putBack([result.editorText]);
      this.notify();
    }
    return result;
  }

  /**
   * Write the open session as a notebook, `prime-<id>.ipynb` in the session's working directory, and
   * answer where it went (an absolute path); null without a session. Throws, saying to upgrade the
   * server, when the server cannot export notebooks (capability `export-ipynb`).
   */
  async exportNotebook(): Promise<string | null> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      return null;
    }
    const offered = this.handshake?.kind === 'ok' ? this.handshake.info.capabilities : [];
    if (!offered.includes(EXPORT_IPYNB)) {
      throw new Error('This server cannot export a session as a notebook: upgrade prime-jupyter on the server.');
    }
    const path = `prime-${sessionId}.ipynb`; // the name every surface's path-less export gets
    const result = await this.client.command({ sessionId, command: 'export', format: 'ipynb', path });
    return result.command === 'export' ? result.path : null;
  }

  // -- the conversation -------------------------------------------------------------------------

  /** Send `text`: a prompt when idle; while a run goes on, steering (default) or a follow-up. */
  async send(text: string, mode: SendMode = 'prompt'): Promise<void> {
    const message = text.trim();
    if (!message) {
      return;
    }
    this.lastSent = message;
    if (!this.state.sessionId) {
      try {
        await this.newSession();
      } catch (error: unknown) {
        const local = addLocalMessage(this.state, `local-${++this.localCount}`, message, Date.now());
        this.state = refuseLocal(local, this.refusal(describe(error), reasonOf(error)));
        this.notify();
        return;
      }
    }
    const behaviour = this.running ? (mode === 'followUp' ? 'followUp' : 'steer') : null;
    this.state = dismissNotice(this.state, 'error');
    if (!behaviour) {
      this.state = addLocalMessage(this.state, `local-${++this.localCount}`, message, Date.now());
    }
    this.notify();
    const sessionId = this.state.sessionId as string;
    let refused: string | null = null;
    try {
      await this.client.chat(
        { sessionId, message, streamingBehavior: behaviour },
        frame => {
          if (frame.type === 'error' && !frame.runId) {
            refused = this.refusal(frame.message, frame.reason); // no run started: the message went nowhere
          } else if (frame.type === 'error') {
            this.apply(sessionId, frame);
          }
        },
        undefined,
        REFUSAL
      );
    } catch (error: unknown) {
      refused = this.refusal(describe(error), reasonOf(error));
    }
    if (refused !== null && sessionId === this.state.sessionId) {
      await this.refused(sessionId, behaviour ? message : null, refused);
    }
  }

  /**
   * A message could not start a run: it stays (a prompt as a failed message to retry or edit, a steer
   * back in the composer), the error says why, and a session that holds nothing else is deleted
   * rather than left in the list as an empty session.
   */
  private async refused(sessionId: string, queued: string | null, error: string): Promise<void> {
    this.state = refuseLocal(this.state, error);
    if (queued !== null) {
      this.putBack([queued]);
    }
    this.notify();
    if (nothingSent(this.state)) {
      this.closeStream();
      await this.client.remove(sessionId).catch(() => undefined);
      if (this.options.persist) {
        window.localStorage.removeItem(CURRENT_SESSION_KEY);
      }
      if (this.state.sessionId === sessionId) {
        this.state = { ...this.state, sessionId: null, name: null };
      }
      await this.refreshSessions();
    }
  }

  /** Why a message could not start a run, and, when the model is the trouble, the other way out. */
  private refusal(message: string, reason: string | null | undefined): string {
    if (reason !== 'no-api-key' && reason !== 'unknown-model') {
      return message;
    }
    const fallback = this.onDefaultModel() ? this.defaultModel() : null;
    const which = fallback ? `The server's default model ${fallback.provider}/${fallback.id} cannot run: ` : '';
    return `${which}${message}. Or pick another model below, then press Retry on your message.`;
  }

  /** Send a failed message again (it leaves the conversation; the new attempt takes its place). */
  retryFailed(key: string): Promise<void> {
    const [state, text] = takeFailed(this.state, key);
    this.state = state;
    return text ? this.send(text) : Promise.resolve();
  }

  /** Take a failed message back into the composer. */
  editFailed(key: string): void {
    const [state, text] = takeFailed(this.state, key);
    this.state = state;
    if (text) {
      this.putBack([text]);
    }
    this.notify();
  }

  /** Put texts back in the composer (the composer takes them with `takeDraft`). */
  private putBack(texts: readonly string[]): void {
    const parts = [...texts, ...(this.draft ? [this.draft] : [])].filter(t => t.trim());
    this.draft = parts.length ? parts.join('\n\n') : null;
  }

  /** The text to put back in the composer, once. */
  takeDraft(): string | null {
    const draft = this.draft;
    this.draft = null;
    return draft;
  }

  /** Send the last message again (after an error). */
  retry(): Promise<void> {
    const text = this.lastSent ?? lastUserText(this.state);
    this.state = dismissNotice(this.state, 'error');
    return text ? this.send(text) : Promise.resolve();
  }

  /**
   * Stop the run. Steering and follow-up messages still queued are taken back first and put in the
   * composer: Escape means "stop", so they are not sent, and nothing typed is lost (the user sends
   * them again with Enter, as a new prompt).
   */
  async abort(): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId || !this.running || this.aborting) {
      return;
    }
    this.aborting = true;
    const texts: string[] = [];
    const takeQueue = async (): Promise<void> => {
      const queue = await this.client.clearQueue(sessionId).catch(() => null);
      texts.push(...(queue?.steering ?? []), ...(queue?.followUp ?? []));
    };
    try {
      // Before the abort, so the run does not take them at its next step; after it too, for a steer
      // whose request reached the server only while the run was stopping.
      await takeQueue();
      await this.client.abort(sessionId).catch((error: unknown) => this.fail(error));
      await takeQueue();
    } finally {
      this.aborting = false;
    }
    if (texts.length) {
      this.putBack(texts);
      this.notify();
    }
  }

  /** Stop the shell command running in the session (`!cmd` from a terminal): an abort of the session. */
  async stopShell(): Promise<void> {
    const sessionId = this.state.sessionId;
    if (sessionId) {
      await this.client.abort(sessionId).catch((error: unknown) => this.fail(error));
    }
  }

  /** Answer a pending question; `null` dismisses it. */
  async answer(questionId: string, answer: QuestionAnswer | null): Promise<void> {
    const sessionId = this.state.sessionId;
    if (sessionId) {
      await this.client.answer({ sessionId, questionId, answer }).catch((error: unknown) => this.fail(error));
    }
  }

  dismiss(key: string): void {
    this.state = dismissNotice(this.state, key);
    this.notify();
  }

  /** The model of the open session, else the one the next new session gets (picked, else the default). */
  currentRef(): ModelRef | null {
    // A session just made has no model frame yet: it has the model it was made with.
    return (this.state.sessionId ? this.state.model : null) ?? this.pendingModel ?? this.defaultModel();
  }

  /**
   * The thinking level of `currentRef()`: the open session's, else the pick's, else the one the server
   * gives new sessions (a reasoning model's default is not "off": the picker shows what runs).
   */
  currentThinking(): string {
    const open = this.state.sessionId ? this.state.thinkingLevel : null;
    return open ?? this.pendingThinking ?? this.models?.thinkingLevel ?? 'off';
  }

  /** Whether the picker shows "Default (…)": nothing picked in this browser, and the default in use. */
  onDefaultModel(): boolean {
    return this.pendingModel === null && isDefault(this.currentRef(), this.defaultModel());
  }

  /** The model the server gives new sessions (its `default_model`, else its settings' default). */
  defaultModel(): ModelRef | null {
    return this.models?.current ?? null;
  }

  /** The model entry of `currentRef()` in the server's list (null for a model typed in). */
  currentModel(): ModelInfo | null {
    return modelEntry(this.models, this.currentRef());
  }

  /**
   * Use `model` in the open session and, as this browser's pick, in new sessions. A model the server
   * refuses for the open session is not kept: the picker goes back to what runs, and the error says why.
   */
  async setModel(model: ModelRef, thinkingLevel: string | null): Promise<void> {
    const before = { model: this.pendingModel, thinking: this.pendingThinking };
    this.pendingModel = model;
    this.pendingThinking = thinkingLevel;
    storePick(model, thinkingLevel);
    if (!(await this.switchSession(model, thinkingLevel))) {
      this.pendingModel = before.model;
      this.pendingThinking = before.thinking;
      storePick(before.model, before.thinking);
      this.notify();
    }
  }

  /**
   * Use thinking `level` on the server's default model: in the open session, and in the new sessions of
   * this page (a pick of the default model alone is not kept across page loads).
   */
  async setThinking(level: string): Promise<void> {
    this.pendingThinking = level;
    const model = this.currentRef();
    if (model) {
      await this.switchSession(model, level);
    }
  }

  /** Whether the server has the provider form (capability `provider-setup`). */
  get canSetUpProviders(): boolean {
    return this.handshake?.kind === 'ok' && this.handshake.info.capabilities.includes(PROVIDER_SETUP);
  }

  /**
   * After the provider form saved a default model: read the models again and use the new default in the
   * open session and new ones (a model picked earlier in this browser had no key, or is not the default
   * the user just chose).
   */
  async providerSaved(): Promise<void> {
    await this.refreshModels();
    await this.useDefaultModel();
  }

  /** Forget this browser's pick: new sessions (and the open one) use the server's default. */
  async useDefaultModel(): Promise<void> {
    this.pendingModel = null;
    this.pendingThinking = null;
    storePick(null, null);
    const model = this.defaultModel();
    if (model) {
      await this.switchSession(model, null);
    }
    this.notify();
  }

  /** Switch the open session (if any) to `model`; false when the server refused it (the error says so). */
  private async switchSession(model: ModelRef, thinkingLevel: string | null): Promise<boolean> {
    const sessionId = this.state.sessionId;
    let switched = true;
    if (sessionId) {
      await this.client.setModel({ sessionId, model, thinkingLevel }).catch((error: unknown) => {
        switched = false;
        const stays = this.state.model ? `: the session stays on ${this.state.model.provider}/${this.state.model.id}` : '';
        this.fail(new Error(`Cannot use ${model.provider}/${model.id}${stays}. ${describe(error)}`));
      });
    }
    this.notify();
    return switched;
  }

  /** The agent's kernel (for "open in a console"), once its IPython tool ran. */
  kernelId(): string | null {
    return latestKernelId(this.state);
  }
}
