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
  latestKernelId
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
import { nextTask } from './tasks';

/** How a message is sent: a new prompt, steering the run going on, or a follow-up after it. */
export type SendMode = 'prompt' | 'steer' | 'followUp';

/** The server capability that lets `chat/command export` write notebooks (`protocol/version.py`). */
export const EXPORT_IPYNB = 'export-ipynb';

/** The frames read from `POST chat`'s response (SSE carries the conversation). */
const REFUSAL: ReadonlySet<ChatFrame['type']> = new Set(['error']);

/** Where the current session id is remembered between page loads. */
const CURRENT_SESSION_KEY = 'prime:current-session';

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
  /** Model and thinking level for the next new session, until a session has its own. */
  pendingModel: ModelRef | null = null;
  pendingThinking: string | null = null;

  constructor(
    readonly client: PrimeClient,
    private readonly options: IControllerOptions = {}
  ) {}

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

  async refreshModels(): Promise<void> {
    this.models = await this.client.models(this.state.sessionId).catch(() => this.models);
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

  /** A fresh session with the chosen model, shown at once. */
  async newSession(): Promise<void> {
    const response = await this.client.newSession({
      model: this.pendingModel ?? this.state.model,
      thinkingLevel: this.pendingThinking ?? this.state.thinkingLevel
    });
    this.show({ session: response.session, messages: response.messages ?? [], cursor: 0 });
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
    if (!this.state.sessionId) {
      try {
        await this.newSession();
      } catch (error: unknown) {
        this.state = failLocal(this.state, describe(error));
        this.lastSent = message;
        this.notify();
        return;
      }
    }
    const sessionId = this.state.sessionId as string;
    const behaviour = this.running ? (mode === 'followUp' ? 'followUp' : 'steer') : null;
    this.lastSent = message;
    this.state = dismissNotice(this.state, 'error');
    if (!behaviour) {
      this.state = addLocalMessage(this.state, `local-${++this.localCount}`, message, Date.now());
    }
    this.notify();
    try {
      await this.client.chat({ sessionId, message, streamingBehavior: behaviour }, frame => this.apply(sessionId, frame), undefined, REFUSAL);
    } catch (error: unknown) {
      this.apply(sessionId, { type: 'error', message: describe(error) });
    }
  }

  /** Send the last message again (after an error). */
  retry(): Promise<void> {
    const text = this.lastSent ?? lastUserText(this.state);
    this.state = dismissNotice(this.state, 'error');
    return text ? this.send(text) : Promise.resolve();
  }

  async abort(): Promise<void> {
    if (this.state.sessionId && this.running) {
      await this.client.abort(this.state.sessionId).catch((error: unknown) => this.fail(error));
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

  /** The model entry of the open session (or of the next new one). */
  currentModel(): ModelInfo | null {
    const ref = this.state.model ?? this.pendingModel ?? this.models?.current ?? null;
    return this.models?.models.find(m => ref !== null && m.provider === ref.provider && m.id === ref.id) ?? null;
  }

  async setModel(model: ModelRef, thinkingLevel: string | null): Promise<void> {
    this.pendingModel = model;
    this.pendingThinking = thinkingLevel;
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

function describe(error: unknown): string {
  if (error instanceof PrimeRequestError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}
