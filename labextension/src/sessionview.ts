/**
 * `SessionView`: the open session's view state, kept current from its SSE frames.
 *
 * It folds the session's frames into the state with the pure model, one batch per task as they
 * arrive; the widgets are told at most once per animation frame (`changed`), however fast deltas come.
 * SSE is the one source of the conversation. When the server says `resync-required`, or its stream
 * restarted behind our cursor (a server restart), the session is refetched and the stream reopened
 * from the hydration's cursor. `ChatController` builds what the user does on top of it.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { EventStream, PrimeClient, StreamStatus } from './client';
import { describe } from './errortext';
import { ViewState, applyFrames, coalesce, emptyState, failLocal, fromSession, isRunning } from './model';
import type { ChatFrame, ChatSessionResponse } from './protocol';
import { IShellRun, applyShellFrames, runsOnLoad } from './shells';
import { nextTask } from './tasks';
import { isToolPart } from './wire';

/** Where the current session id is remembered between page loads. */
export const CURRENT_SESSION_KEY = 'prime:current-session';

export interface IControllerOptions {
  /** Remember the open session across reloads (the sidebar panel does; extra panels do not). */
  readonly persist?: boolean;
}

export abstract class SessionView {
  private readonly changedSignal = new Signal<this, void>(this);
  private stream: EventStream | null = null;
  private frameRequested = false;
  private resyncing: Promise<void> | null = null;
  private readonly inbox: ChatFrame[] = [];
  private flushScheduled = false;
  protected disposed = false;

  state: ViewState = emptyState();
  /** The user's shell commands watched in the open session (not part of the view state: `shells.ts`). */
  shells: readonly IShellRun[] = [];
  streamStatus: StreamStatus | 'closed' = 'closed';

  constructor(
    readonly client: PrimeClient,
    protected readonly options: IControllerOptions = {}
  ) {}

  /** The models (refreshed whenever a session is shown). */
  abstract refreshModels(): Promise<void>;
  /** The session list (refreshed whenever a run ends). */
  abstract refreshSessions(): Promise<void>;

  /** Emitted at most once per animation frame after the state changed. */
  get changed(): ISignal<this, void> {
    return this.changedSignal;
  }

  get running(): boolean {
    return isRunning(this.state);
  }

  /**
   * Tool calls that were already there when a session was shown (hydrated), as opposed to those that came
   * while this page followed the session: what a notebook card does when its call finishes (reload the
   * open notebook, mark cells for review) is for the latter only.
   */
  readonly historic = new Set<string>();

  dispose(): void {
    this.disposed = true;
    this.stream?.close();
    Signal.clearData(this);
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

  protected show(response: ChatSessionResponse): void {
    const sessionId = response.session.sessionId;
    this.shells = runsOnLoad(sessionId === this.state.sessionId ? this.shells : [], response.runningShells);
    this.state = fromSession(response, this.state);
    for (const message of this.state.messages) {
      for (const part of message.parts) {
        if (isToolPart(part)) {
          this.historic.add(part.toolCallId);
        }
      }
    }
    if (this.options.persist) {
      window.localStorage.setItem(CURRENT_SESSION_KEY, sessionId);
    }
    this.follow(sessionId, response.cursor ?? 0);
    this.changedNow();
    void this.refreshModels();
  }

  /** Stop following the open session's frames. */
  protected closeStream(): void {
    this.stream?.close();
    this.stream = null;
    this.streamStatus = 'closed';
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

  protected apply(sessionId: string, ...frames: ChatFrame[]): void {
    if (this.disposed || sessionId !== this.state.sessionId) {
      return;
    }
    this.state = applyFrames(this.state, frames);
    this.shells = applyShellFrames(this.shells, frames);
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

  protected fail(error: unknown): void {
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

  protected changedNow(): void {
    this.frameRequested = false;
    if (!this.disposed) {
      this.changedSignal.emit();
    }
  }
}
