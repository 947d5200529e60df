/**
 * The model the user picked in this browser for new sessions, kept in `localStorage` across page loads,
 * and which model the panel shows as current: the open session's, else the pick, else the server's default.
 */
import type { ModelInfo, ModelRef, ModelsResponse } from './protocol';

/** The model the user picked in this browser for new sessions (absent: the server's default). */
const PICKED_MODEL_KEY = 'prime:picked-model';

export interface IModelPick {
  readonly model: ModelRef | null;
  readonly thinking: string | null;
}

export function storedPick(): IModelPick {
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

/** Keep `model` (and its thinking level) as this browser's pick; null forgets the pick. */
export function storePick(model: ModelRef | null, thinking: string | null): void {
  if (model) {
    window.localStorage.setItem(PICKED_MODEL_KEY, JSON.stringify({ ...model, thinking }));
  } else {
    window.localStorage.removeItem(PICKED_MODEL_KEY);
  }
}

/** Whether `ref` is the server's default model `fallback` (the same object, or the same provider and id). */
export function isDefault(ref: ModelRef | null, fallback: ModelRef | null): boolean {
  return ref === fallback || (ref?.provider === fallback?.provider && ref?.id === fallback?.id);
}

/** The entry of `ref` in the server's list (null for a model typed in). */
export function modelEntry(models: ModelsResponse | null, ref: ModelRef | null): ModelInfo | null {
  return models?.models.find(m => ref !== null && m.provider === ref.provider && m.id === ref.id) ?? null;
}
