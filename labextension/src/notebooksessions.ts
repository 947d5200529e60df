/**
 * Sessions tied to notebooks: "Explain this error" and "Ask about this cell" post into the session of
 * that notebook (created on first use, named after it, reused after), not whatever session is open.
 * The tie is kept in this browser (`localStorage`); a session named after the notebook is found again
 * when the tie is missing (another browser, cleared storage).
 *
 * `FixTargets` remembers which failing cell each "Explain this error" prompt was about, so the code
 * of its answer can be applied to that cell.
 */
import type { ChatController } from './controller';
import type { ViewState } from './model';
import type { ICellTarget } from './widgets/context';
import { firstText } from './wire';

const TIES_KEY = 'prime:notebook-sessions';
const FIXES_KEY = 'prime:fix-targets';
/** How many sessions' fix targets are kept in this browser (the newest). */
const MAX_FIX_SESSIONS = 50;

type Fix = { readonly prompt: string; readonly target: ICellTarget };

/** The name a notebook's session gets. */
export function notebookSessionName(path: string): string {
  return `Notebook ${path}`;
}

function readRecord<T>(key: string): Record<string, T> {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(key) ?? '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, T>) : {};
  } catch {
    return {};
  }
}

function readTies(): Record<string, string> {
  return readRecord<string>(TIES_KEY);
}

/** Show the session of the notebook at `path` in `controller`, creating it on first use. */
export async function openNotebookSession(controller: ChatController, path: string): Promise<void> {
  const ties = readTies();
  await controller.refreshSessions();
  const known = (id: string | undefined): id is string => !!id && controller.sessions.some(s => s.sessionId === id);
  let sessionId: string | undefined = ties[path];
  if (!known(sessionId)) {
    sessionId = controller.sessions.find(s => s.name === notebookSessionName(path))?.sessionId;
  }
  if (known(sessionId)) {
    if (sessionId !== controller.state.sessionId) {
      await controller.openSession(sessionId);
    }
  } else {
    await controller.newSession(path);
    sessionId = controller.state.sessionId ?? undefined;
    if (!sessionId) {
      return;
    }
    await controller.rename(sessionId, notebookSessionName(path));
  }
  window.localStorage.setItem(TIES_KEY, JSON.stringify({ ...ties, [path]: sessionId }));
}

/** The failing cells that "Explain this error" prompts were about, by session (kept in this browser). */
export class FixTargets {
  private readonly bySession = new Map<string, readonly Fix[]>(Object.entries(readRecord<Fix[]>(FIXES_KEY)));

  /** `prompt`, about to be sent in session `sessionId`, explains the error of `target`. */
  note(sessionId: string, prompt: string, cell: ICellTarget): void {
    const target: ICellTarget = { path: cell.path, cellId: cell.cellId, source: cell.source };
    const list = this.bySession.get(sessionId) ?? [];
    this.bySession.delete(sessionId); // re-inserted last: the newest sessions are the ones kept
    this.bySession.set(sessionId, [...list.filter(f => f.prompt !== prompt), { prompt, target }]);
    const kept = [...this.bySession].slice(-MAX_FIX_SESSIONS);
    window.localStorage.setItem(FIXES_KEY, JSON.stringify(Object.fromEntries(kept)));
  }

  /** The cell each answer of `state` may fix: answers that follow an "Explain this error" prompt. */
  byMessage(state: ViewState): ReadonlyMap<string, ICellTarget> {
    const fixes = state.sessionId ? this.bySession.get(state.sessionId) : undefined;
    const out = new Map<string, ICellTarget>();
    if (!fixes) {
      return out;
    }
    let current: ICellTarget | null = null;
    for (const message of state.messages) {
      if (message.role === 'user') {
        const text = firstText(message.parts);
        current = fixes.find(f => f.prompt === text)?.target ?? null;
      } else if (current) {
        out.set(message.key, current);
      }
    }
    return out;
  }
}
