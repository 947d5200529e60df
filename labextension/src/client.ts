/**
 * The one module that talks to the prime_jupyter server extension (`<base_url>prime/api/...`).
 *
 * Every request goes through `ServerConnection.makeRequest`, which adds the base URL, the token and
 * the XSRF header, so the panel works behind JupyterHub and with cookie auth alike. The session's
 * live frames come over SSE (`EventSource`, authenticated by the login cookie, or the token in the
 * URL when the page has one); the stream's cursor is kept in `sessionStorage`, so a reconnect after a
 * network blip or a server restart resumes where it stopped.
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
  ErrorBody,
  InfoResponse,
  ModelsResponse,
  QueueResult,
  QuestionAnswerRequest,
  SessionSummary,
  SessionsResponse,
  SetModelRequest
} from './protocol';
import { LineDecoder, PROTOCOL_VERSION, parseFrame } from './wire';

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
/** Wait before reopening an SSE stream the browser gave up on (it retries network errors itself). */
export const RECONNECT_DELAY_MS = 2000;

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
   * stream ends. Throws `PrimeRequestError` when the request is refused before the stream starts.
   */
  async chat(request: ChatRequest, onFrame: (frame: ChatFrame) => void, signal?: AbortSignal): Promise<void> {
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
        const frame = parseFrame(line);
        if (frame) {
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
 * The SSE stream of one session. The browser reconnects by itself after network errors (resending
 * `Last-Event-ID`); when it gives up (an HTTP error, a server that is down for long), the stream is
 * reopened after `RECONNECT_DELAY_MS` from the stored cursor. Frames at or before the cursor are
 * dropped, so nothing is applied twice whoever replays it.
 */
export class EventStream {
  private source: EventSource | null = null;
  private timer: number | null = null;
  private closed = false;

  constructor(
    private readonly client: PrimeClient,
    readonly sessionId: string,
    private cursor: number,
    private readonly onFrame: FrameHandler,
    private readonly onStatus: (status: StreamStatus) => void
  ) {
    storeCursor(sessionId, cursor);
    this.open('connecting');
  }

  /** The sequence number of the last frame applied. */
  get position(): number {
    return this.cursor;
  }

  /** Remember the cursor in `sessionStorage` (the owner calls this once per batch of frames, not per frame). */
  persist(): void {
    storeCursor(this.sessionId, this.cursor);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
    }
    this.source?.close();
    this.source = null;
  }

  private open(status: StreamStatus): void {
    this.onStatus(status);
    const query: Record<string, string> = { sessionId: this.sessionId, lastEventId: String(this.cursor) };
    if (this.client.settings.token) {
      query.token = this.client.settings.token;
    }
    const source = new EventSource(this.client.url('chat/events', query), { withCredentials: true });
    source.onopen = () => this.onStatus('live');
    source.onmessage = event => this.receive(event);
    source.onerror = () => this.failed(source);
    this.source = source;
  }

  private receive(event: MessageEvent<string>): void {
    const frame = parseFrame(event.data);
    if (frame === null) {
      return;
    }
    // An event without an `id:` line reports the previous event's id: the unsequenced frames are
    // recognised by type instead, and never move the cursor.
    if (UNSEQUENCED.has(frame.type)) {
      this.onFrame(frame, null);
      return;
    }
    const seq = event.lastEventId ? Number(event.lastEventId) : null;
    if (seq !== null && seq <= this.cursor) {
      return;
    }
    if (seq !== null) {
      this.cursor = seq;
    }
    this.onFrame(frame, seq);
  }

  private failed(source: EventSource): void {
    if (this.closed) {
      return;
    }
    this.onStatus('reconnecting');
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      this.timer = window.setTimeout(() => {
        this.timer = null;
        if (!this.closed) {
          this.open('reconnecting');
        }
      }, RECONNECT_DELAY_MS);
    }
  }
}
