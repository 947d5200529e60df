/**
 * The one module that talks HTTP to the prime_jupyter server extension.
 *
 * Every request goes through `ServerConnection.makeRequest`, which adds the
 * token, the XSRF header and the base URL, so the panel works behind
 * JupyterHub and with cookie auth alike.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** What `GET prime/api/info` tells the panel about the server. */
export interface IServerInfo {
  readonly version: string;
}

/** Outcome of the version handshake; a 404 means the extension is absent. */
export type InfoResult =
  | { readonly kind: 'ok'; readonly info: IServerInfo }
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string };

/** Build the URL of a `prime/...` route under the server's base URL. */
function primeUrl(settings: ServerConnection.ISettings, ...parts: string[]): string {
  return URLExt.join(settings.baseUrl, 'prime', ...parts);
}

/** Read `version` from an info body without trusting its shape. */
function parseInfo(body: unknown): IServerInfo | null {
  if (typeof body !== 'object' || body === null || !('version' in body)) {
    return null;
  }
  const version: unknown = body.version;
  return typeof version === 'string' ? { version } : null;
}

/**
 * Ask the server extension for its info.
 *
 * Never throws: network failures and unexpected bodies come back as
 * `{kind: 'error'}` so the panel can always render something.
 */
export async function fetchInfo(
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<InfoResult> {
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(primeUrl(settings, 'api', 'info'), {}, settings);
  } catch (error: unknown) {
    return { kind: 'error', message: String(error) };
  }
  if (response.status === 404) {
    return { kind: 'missing' };
  }
  if (!response.ok) {
    return { kind: 'error', message: `HTTP ${response.status} ${response.statusText}` };
  }
  const info = parseInfo(await response.json().catch(() => null));
  return info ? { kind: 'ok', info } : { kind: 'error', message: 'unexpected info response' };
}
