/**
 * `ChatController`: the panel's glue between the client and the widgets.
 *
 * It owns the view state of the open session and folds the session's SSE frames into it with the
 * pure model, one frame at a time as they arrive; the widgets are told at most once per animation
 * frame (`changed`), however fast deltas come. SSE is the one source of the conversation: the NDJSON
 * response of `POST chat` is read only for a refusal (`error`), so no frame is ever applied twice.
 * When the server says `resync-required`, or its stream restarted behind our cursor (a server
 * restart), the session is refetched and the stream reopened from the hydration's cursor.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { EventStream, InfoResult, PrimeClient, PrimeRequestError, StreamStatus } from './client';
import {
  ViewState,
  addLocalMessage,
  applyFrames,
  coalesce,
  dismissNotice,
  emptyState,
  failLocal,
  fromSession,
  isRunning,
  lastUserText,
  latestKernelId,
  nothingSent,
  refuseLocal,
  takeFailed
} from './model';
import type {
  ChatFrame,
  ChatSessionResponse,
  ModelInfo,
  ModelRef,
  ModelsResponse,
  QuestionAnswer,
  SessionSummary
} from './protocol';
import { FixTargets } from './notebooksessions';
import { nextTask } from './tasks';

/** How a message is sent: a new prompt, steering the run going on, or a follow-up after it. */
export type SendMode = 'prompt' | 'steer' | 'followUp';

/** The server capability that lets `chat/command export` write notebooks (`protocol/version.py`). */
export const EXPORT_IPYNB = 'export-ipynb';

/** The frames read from `POST chat`'s response (SSE carries the conversation). */
const REFUSAL: ReadonlySet<ChatFrame['type']> = new Set(['error']);

/** Where the current session id is remembered between page loads. */
const CURRENT_SESSION_KEY = 'prime:current-session';
/** The model the user picked in this browser for new sessions (absent: the server's default). */
const PICKED_MODEL_KEY = 'prime:picked-model';

function storedPick(): { model: ModelRef | null; thinking: string | null } {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(PICKED_MODEL_KEY) ?? 'null');
    if (typeof value === 'object' && value !== null && 'provider' in value && 'id' in value) {
      const { provider, id } = value;
      const thinking = 'thinking' in value && typeof value.thinking === 'string' ? value.thinking : null;
      if (typeof provider === 'string' && typeof id === 'string') {
        return { model: { provider, id }, thinking };
      }
    }
  } catch {
    // an unreadable pick is no pick
  }
  return { model: null, thinking: null };
}

export interface IControllerOptions {
  /** Remember the open session across reloads (the sidebar panel does; extra panels do not). */
  readonly persist?: boolean;
}

export class ChatController {
  private readonly changedSignal = new Signal<this, void>(this);
  private stream: EventStream | null = null;
  private frameRequested = false;
  private resyncing: Promise<void> | null = null;
  private lastSent: string | null = null;
  private readonly inbox: ChatFrame[] = [];
  private flushScheduled = false;
  private localCount = 0;
  private disposed = false;

  state: ViewState = emptyState();
  handshake: InfoResult | null = null;
  streamStatus: StreamStatus | 'closed' = 'closed';
  sessions: SessionSummary[] = [];
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

  constructor(
    readonly client: PrimeClient,
    private readonly options: IControllerOptions = {}
  ) {
    const pick = storedPick();
    this.pendingModel = pick.model;
    this.pendingThinking = pick.thinking;
  }

  /** Emitted at most once per animation frame after the state changed. */
  get changed(): ISignal<this, void> {
    return this.changedSignal;
  }

  get ready(): boolean {
    return this.handshake?.kind === 'ok';
  }

  get running(): boolean {
    return isRunning(this.state);
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

  dispose(): void {
    this.disposed = true;
    this.stream?.close();
    Signal.clearData(this);
  }

  // -- sessions ---------------------------------------------------------------------------------

  async refreshSessions(): Promise<void> {
    this.sessions = await this.client.sessions().catch(() => this.sessions);
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

  /** Show a session: hydrate it, then follow its frames from the hydration's cursor. */
  async openSession(sessionId: string): Promise<void> {
    this.stream?.close();
    this.stream = null;
    this.inbox.length = 0; // the hydration supersedes what the closed stream had not delivered yet
    let response: ChatSessionResponse;
    try {
      response = await this.client.session(sessionId);
    } catch (error: unknown) {
      this.state = failLocal(this.state, `Cannot open the session: ${describe(error)}`);
      this.notify();
      return;
    }
    this.show(response);
  }

  private show(response: ChatSessionResponse): void {
    const sessionId = response.session.sessionId;
    this.state = fromSession(response, this.state);
    if (this.options.persist) {
      window.localStorage.setItem(CURRENT_SESSION_KEY, sessionId);
    }
    this.follow(sessionId, response.cursor ?? 0);
    this.changedNow();
    void this.refreshModels();
  }

  private follow(sessionId: string, cursor: number): void {
    this.stream?.close();
    this.stream = this.client.events(
      sessionId,
      cursor,
      frame => this.receive(sessionId, frame),
      status => {
        this.streamStatus = status;
        this.notify();
      }
    );
  }

  /** A fresh session with the model picked in this browser, else the server's default, shown at once. */
  async newSession(): Promise<void> {
    const response = await this.client.newSession({
      model: this.pendingModel,
      thinkingLevel: this.pendingModel ? this.pendingThinking : null
    });
    const unsent = this.state.sessionId ? [] : this.state.messages.filter(m => m.failed);
    this.show({ session: response.session, messages: response.messages ?? [], cursor: 0 });
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
      this.stream?.close();
      this.stream = null;
      this.streamStatus = 'closed';
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
    const path = `prime-${sessionId.slice(0, 8)}.ipynb`;
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
      this.stream?.close();
      this.stream = null;
      this.streamStatus = 'closed';
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

  /** Whether the picker shows "Default (…)": nothing picked in this browser, and the default in use. */
  onDefaultModel(): boolean {
    const ref = this.currentRef();
    const fallback = this.defaultModel();
    return this.pendingModel === null && (ref === fallback || (ref?.provider === fallback?.provider && ref?.id === fallback?.id));
  }

  /** The model the server gives new sessions (its `default_model`, else its settings' default). */
  defaultModel(): ModelRef | null {
    return this.models?.current ?? null;
  }

  /** The model entry of `currentRef()` in the server's list (null for a model typed in). */
  currentModel(): ModelInfo | null {
    const ref = this.currentRef();
    return this.models?.models.find(m => ref !== null && m.provider === ref.provider && m.id === ref.id) ?? null;
  }

  /** Use `model` in the open session and, as this browser's pick, in new sessions. */
  async setModel(model: ModelRef, thinkingLevel: string | null): Promise<void> {
    this.pendingModel = model;
    this.pendingThinking = thinkingLevel;
    window.localStorage.setItem(PICKED_MODEL_KEY, JSON.stringify({ ...model, thinking: thinkingLevel }));
    await this.switchSession(model, thinkingLevel);
  }

  /** Forget this browser's pick: new sessions (and the open one) use the server's default. */
  async useDefaultModel(): Promise<void> {
    this.pendingModel = null;
    this.pendingThinking = null;
    window.localStorage.removeItem(PICKED_MODEL_KEY);
    const model = this.defaultModel();
    if (model) {
      await this.switchSession(model, null);
    }
    this.notify();
  }

  private async switchSession(model: ModelRef, thinkingLevel: string | null): Promise<void> {
    const sessionId = this.state.sessionId;
    if (sessionId) {
      await this.client.setModel({ sessionId, model, thinkingLevel }).catch((error: unknown) => this.fail(error));
    }
    this.notify();
  }

  /** The agent's kernel (for "open in a console"), once its IPython tool ran. */
  kernelId(): string | null {
    return latestKernelId(this.state);
  }

  // -- frames -----------------------------------------------------------------------------------

  /**
   * Frames are collected and folded once per task: a network chunk often carries hundreds of SSE
   * events, dispatched back to back; their deltas are merged (`coalesce`) and folded in one go.
   */
  private receive(sessionId: string, frame: ChatFrame): void {
    if (frame.type === 'connected' && this.stream && (frame.cursor ?? 0) < this.stream.position) {
      void this.resync(); // the server's stream restarted behind our cursor: it was restarted
      return;
    }
    this.inbox.push(frame);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      nextTask(() => this.flush(sessionId));
    }
  }

  private flush(sessionId: string): void {
    this.flushScheduled = false;
    const frames = coalesce(this.inbox.splice(0));
    this.stream?.persist();
    this.apply(sessionId, ...frames);
    if (frames.some(f => f.type === 'done')) {
      void this.refreshSessions();
    }
  }

  private apply(sessionId: string, ...frames: ChatFrame[]): void {
    if (this.disposed || sessionId !== this.state.sessionId) {
      return;
    }
    this.state = applyFrames(this.state, frames);
    if (this.state.resync) {
      void this.resync();
    }
    this.notify();
  }

  private resync(): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) {
      return Promise.resolve();
    }
    this.resyncing ??= this.openSession(sessionId).finally(() => {
      this.resyncing = null;
    });
    return this.resyncing;
  }

  private fail(error: unknown): void {
    this.state = failLocal(this.state, describe(error));
    this.notify();
  }

  /** Tell the widgets on the next animation frame (once, however many changes came before it). */
  notify(): void {
    if (this.frameRequested || this.disposed) {
      return;
    }
    this.frameRequested = true;
    window.requestAnimationFrame(() => this.changedNow());
  }

  private changedNow(): void {
    this.frameRequested = false;
    if (!this.disposed) {
      this.changedSignal.emit();
    }
  }
}

function reasonOf(error: unknown): string | null {
  return error instanceof PrimeRequestError ? error.reason ?? null : null;
}

function describe(error: unknown): string {
  if (error instanceof PrimeRequestError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}
