/** What the panel says of an error: its message, and the server's reason for a refused request. */
import { PrimeRequestError } from './client';

/** The server's reason (`no-api-key`, `busy`, ...) of a refused request, or null. */
export function reasonOf(error: unknown): string | null {
  return error instanceof PrimeRequestError ? error.reason ?? null : null;
}

export function describe(error: unknown): string {
  if (error instanceof PrimeRequestError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}
