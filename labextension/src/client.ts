/**
 * The one module that talks to the prime_jupyter server extension (`<base_url>prime/api/...`).
 *
 * Every request goes through `ServerConnection.makeRequest`, which adds the base URL, the token and
 * the XSRF header, so the panel works behind JupyterHub and with cookie auth alike. The session's
 * live frames come over SSE (read with `fetch`, see `EventStream`); the stream's cursor is kept in
 * `sessionStorage`, so a reconnect after a network blip or a server restart resumes where it stopped.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import type {
  ChatCommandRequest,
  ChatCommandResponse,
  ChatFrame,
  ChatNewRequest,
  ChatNewResponse,
  ChatRequest,
  ChatSessionResponse,
  CommandEntry,
  CommandsResponse,
  ErrorBody,
  InfoResponse,
  ModelsResponse,
  ProviderSetupRequest,
  ProviderTestResponse,
  ProvidersResponse,
  QueueResult,
  QuestionAnswerRequest,
  SessionSummary,
  SessionsResponse,
  SetModelRequest
} from './protocol';
import { nextTask } from './tasks';
import { ISseMessage, LineDecoder, PROTOCOL_VERSION, SseDecoder, parseFrame } from './wire';

/** Shown when `prime/api/info` answers 404. */
export const NOT_INSTALLED_MESSAGE = 'The prime_jupyter server extension is not installed or not enabled.';

/** Outcome of the version handshake. */
export type InfoResult =
  | { readonly kind: 'ok'; readonly info: InfoResponse }
  | { readonly kind: 'missing'; readonly message: string }
  | { readonly kind: 'incompatible'; readonly message: string }
  | { readonly kind: 'error'; readonly message: string };

/** A request answered with an HTTP error; `reason` comes from the server's `ErrorBody` when it sent one. */
export class PrimeRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: ErrorBody['reason'] | 'network' = 'internal'
  ) {
    super(message);
  }
}

/** Called for each frame of an SSE stream, with its sequence number (null for `connected`). */
export type FrameHandler = (frame: ChatFrame, seq: number | null) => void;

/** How the live stream of a session is doing. */
export type StreamStatus = 'connecting' | 'live' | 'reconnecting';

const CURSOR_PREFIX = 'prime:sse:last-event-id:';
/** Frames the server sends without an `id:` line. */
const UNSEQUENCED: ReadonlySet<string> = new Set(['connected', 'resync-required']);
/** Wait before reopening an SSE stream that ended, when the server named no `retry:`. */
export const RECONNECT_DELAY_MS = 2000;
/** How soon the stream's cursor is written to `sessionStorage` after it moved. */
const PERSIST_MS = 250;
/** The longest the stream's frames are parsed and handed on before the page gets the main thread back. */
const SLICE_MS = 8;

/** The stored SSE cursor of a session (0 when none). */
export function storedCursor(sessionId: string): number {
  const value = Number(window.sessionStorage.getItem(CURSOR_PREFIX + sessionId));
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** Remember the SSE cursor of a session for this tab, surviving reloads. */
export function storeCursor(sessionId: string, cursor: number): void {
  window.sessionStorage.setItem(CURSOR_PREFIX + sessionId, String(cursor));
}

function errorMessage(body: unknown, fallback: string): [string, ErrorBody['reason']] {
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    const reason = 'reason' in body && typeof body.reason === 'string' ? body.reason : 'internal';
    return [body.message, reason as ErrorBody['reason']];
  }
  return [fallback, 'internal'];
}

/** HTTP access to one Jupyter server's prime routes. */
export class PrimeClient {
  constructor(readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings()) {}

  /** The URL of a route under `<base_url>prime/api/`. */
  url(route: string, query: Record<string, string> = {}): string {
    const base = URLExt.join(this.settings.baseUrl, 'prime', 'api', route);
    const search = new URLSearchParams(query).toString();
    return search ? `${base}?${search}` : base;
  }

  private async request(route: string, init: RequestInit = {}, query: Record<string, string> = {}): Promise<Response> {
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(this.url(route, query), init, this.settings);
    } catch (error: unknown) {
      throw new PrimeRequestError(0, `Cannot reach the Jupyter server: ${String(error)}`, 'network');
    }
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => null);
      const [message, reason] = errorMessage(body, `HTTP ${response.status} ${response.statusText}`);
      throw new PrimeRequestError(response.status, message, reason);
    }
    return response;
  }

  private async json<T>(route: string, init: RequestInit = {}, query: Record<string, string> = {}): Promise<T> {
    const response = await this.request(route, init, query);
    return (await response.json()) as T;
  }

  private post<T>(route: string, body: object, method = 'POST'): Promise<T> {
    return this.json<T>(route, { method, body: JSON.stringify(body) });
  }

  /** The version handshake: a 404 means the server extension is absent. Never throws. */
  async info(): Promise<InfoResult> {
    let info: InfoResponse;
    try {
      info = await this.json<InfoResponse>('info');
    } catch (error: unknown) {
      if (error instanceof PrimeRequestError && error.status === 404) {
        return { kind: 'missing', message: NOT_INSTALLED_MESSAGE };
      }
      return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
    }
    if (info.protocolVersion !== PROTOCOL_VERSION) {
      const side = info.protocolVersion > PROTOCOL_VERSION ? 'this panel (rebuild or reinstall it)' : 'the server';
      const message = `The server speaks protocol ${info.protocolVersion}, this panel ${PROTOCOL_VERSION}: upgrade ${side}.`;
      return { kind: 'incompatible', message };
    }
    return { kind: 'ok', info };
  }

  newSession(request: ChatNewRequest): Promise<ChatNewResponse> {
    return this.post<ChatNewResponse>('chat/new', request);
  }

  /** The commands the session offers (`GET chat/commands`, capability `commands`). */
  async commands(sessionId: string | null): Promise<CommandEntry[]> {
    return (await this.json<CommandsResponse>('chat/commands', {}, sessionId ? { sessionId } : {})).commands;
  }

  session(sessionId: string): Promise<ChatSessionResponse> {
    return this.json<ChatSessionResponse>('chat/session', {}, { sessionId });
  }

  async sessions(): Promise<SessionSummary[]> {
    return (await this.json<SessionsResponse>('chat/sessions')).sessions;
  }

  async rename(sessionId: string, name: string): Promise<void> {
    await this.post('chat/sessions', { sessionId, name }, 'PATCH');
  }

  async remove(sessionId: string): Promise<void> {
    await this.json('chat/sessions', { method: 'DELETE', body: JSON.stringify({ sessionId }) }, { sessionId });
  }

  /** The models; `current` is the session's model (without `sessionId`: the model a new session gets). */
  models(sessionId?: string | null): Promise<ModelsResponse> {
    return this.json<ModelsResponse>('chat/models', {}, sessionId ? { sessionId } : {});
  }

  /** The providers, whether each has a key and where it comes from (never the key itself). */
  providers(): Promise<ProvidersResponse> {
    return this.json<ProvidersResponse>('chat/providers');
  }

  /** Save the provider form (the key goes to the server's auth.json and never comes back). */
  saveProvider(request: ProviderSetupRequest): Promise<ProvidersResponse> {
    return this.post<ProvidersResponse>('chat/providers', request);
  }

  /** One small request with the form's values; nothing is saved. */
  testProvider(request: ProviderSetupRequest): Promise<ProviderTestResponse> {
    return this.post<ProviderTestResponse>('chat/providers/test', request);
  }

  async setModel(request: SetModelRequest): Promise<void> {
    await this.post('chat/model', request);
  }

  async abort(sessionId: string): Promise<void> {
    await this.post('chat/abort', { sessionId });
  }

  /**
   * Take back the steering and follow-up messages the session still holds (the connection route's
   * `clear_queue` command): what was queued and not yet delivered to the model.
   */
  clearQueue(sessionId: string): Promise<QueueResult> {
    return this.post<QueueResult>('connection/command', { sessionId, command: { type: 'clear_queue' } });
  }

  async answer(request: QuestionAnswerRequest): Promise<void> {
    await this.post('chat/question', request);
  }

  command(request: ChatCommandRequest): Promise<ChatCommandResponse> {
    return this.post<ChatCommandResponse>('chat/command', request);
  }

  /**
   * Send a message (`POST chat`) and hand each NDJSON frame of the response to `onFrame` until the
   * stream ends (with `only`, just the frames of those types: the others are not even parsed, and a
   * run streams thousands). Throws `PrimeRequestError` when the request is refused before the stream starts.
   */
  async chat(
    request: ChatRequest,
    onFrame: (frame: ChatFrame) => void,
    signal?: AbortSignal,
    only?: ReadonlySet<ChatFrame['type']>
  ): Promise<void> {
    // A frame of a type in `only` has `"<type>"` in its line; lines without any are skipped unparsed.
    const wanted = only ? [...only].map(type => `"${type}"`) : null;
    const response = await this.request('chat', { method: 'POST', body: JSON.stringify(request), signal });
    if (!response.body) {
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const lines = new LineDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      const batch = done ? lines.close() : lines.feed(value);
      for (const line of batch) {
        if (wanted && !wanted.some(type => line.includes(type))) {
          continue;
        }
        const frame = parseFrame(line);
        if (frame && (!only || only.has(frame.type))) {
          onFrame(frame);
        }
      }
      if (done) {
        return;
      }
    }
  }

  /** Open the live stream of a session after `cursor` (frames with a greater sequence number follow). */
  events(sessionId: string, cursor: number, onFrame: FrameHandler, onStatus: (s: StreamStatus) => void): EventStream {
    return new EventStream(this, sessionId, cursor, onFrame, onStatus);
  }
}

/**
 * The SSE stream of one session, read with `fetch` (through `makeRequest`, so token and cookie auth
 * work as for every other route) rather than `EventSource`: an EventSource dispatches every message of
 * a network chunk as its own event in one task, and a chunk of a fast answer carries thousands of them
 * (a 100 KB chunk took 150–350 ms of the main thread in `benchmarks/bench_panel.py`). Here a chunk is
 * split and parsed in slices of at most `SLICE_MS`, yielding to the page in between.
 *
 * When the stream ends or fails (network error, HTTP error, server restart) it is reopened from the
 * cursor after the server's `retry:` (else `RECONNECT_DELAY_MS`). Frames at or before the cursor are
 * dropped, so nothing is applied twice whoever replays it.
 */
export class EventStream {
  private readonly abort = new AbortController();
  private timer: number | null = null;
  private persistTimer: number | null = null;
  private closed = false;
  private retryMs: number | null = null;

  constructor(
    private readonly client: PrimeClient,
    readonly sessionId: string,
    private cursor: number,
    private readonly onFrame: FrameHandler,
    private readonly onStatus: (status: StreamStatus) => void
  ) {
    storeCursor(sessionId, cursor);
    void this.run('connecting');
  }

  /** The sequence number of the last frame applied. */
  get position(): number {
    return this.cursor;
  }

  /**
   * Remember the cursor in `sessionStorage` within `PERSIST_MS` (the owner calls this once per batch of
   * frames): a `setItem` costs about 1 ms, which made a tenth of the main thread's work while a fast
   * answer streamed (`benchmarks/bench_panel.py`).
   */
  persist(): void {
    this.persistTimer ??= window.setTimeout(() => {
      this.persistTimer = null;
      storeCursor(this.sessionId, this.cursor);
    }, PERSIST_MS);
  }

  close(): void {
    this.closed = true;
    for (const timer of [this.timer, this.persistTimer]) {
      if (timer !== null) {
        window.clearTimeout(timer);
      }
    }
    if (this.persistTimer !== null) {
      storeCursor(this.sessionId, this.cursor);
    }
    this.abort.abort();
  }

  private async run(status: StreamStatus): Promise<void> {
    this.onStatus(status);
    const decoder = new SseDecoder();
    try {
      await this.read(decoder);
    } catch {
      // a network error, an HTTP error or close(): reopened below unless closed
    }
    this.retryMs = decoder.retryMs ?? this.retryMs;
    if (!this.closed) {
      this.onStatus('reconnecting');
      this.timer = window.setTimeout(() => {
        this.timer = null;
        if (!this.closed) {
          void this.run('reconnecting');
        }
      }, this.retryMs ?? RECONNECT_DELAY_MS);
    }
  }

  private async read(decoder: SseDecoder): Promise<void> {
    const query = { sessionId: this.sessionId, lastEventId: String(this.cursor) };
    const init: RequestInit = { signal: this.abort.signal, headers: { Accept: 'text/event-stream' } };
    const response = await ServerConnection.makeRequest(this.client.url('chat/events', query), init, this.client.settings);
    if (!response.ok || !response.body) {
      throw new PrimeRequestError(response.status, `chat/events answered HTTP ${response.status}`);
    }
    this.onStatus('live');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || this.closed) {
        return;
      }
      let slice = performance.now();
      for (const message of decoder.feed(value)) {
        if (performance.now() - slice > SLICE_MS) {
          await new Promise<void>(resolve => nextTask(resolve));
          slice = performance.now();
          if (this.closed) {
            return;
          }
        }
        this.receive(message);
      }
    }
  }

  private receive(message: ISseMessage): void {
    const frame = parseFrame(message.data);
    if (frame === null) {
      return;
    }
    // The unsequenced frames are recognised by type, and never move the cursor.
    if (UNSEQUENCED.has(frame.type)) {
      this.onFrame(frame, null);
      return;
    }
    const seq = message.id ? Number(message.id) : null;
    if (seq !== null && seq <= this.cursor) {
      return;
    }
    if (seq !== null) {
      this.cursor = seq;
    }
    this.onFrame(frame, seq);
  }
}
