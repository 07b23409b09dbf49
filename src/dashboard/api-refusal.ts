/**
 * An API server's refusal as the page shows it: its HTTP code and message (a 403 stays a 403),
 * or 502 when the server could not be reached at all.
 */
import { StatusError } from '../api/meta/v1/status-error.js';

export function refusal(e: unknown): { code: number; message: string } {
  if (e instanceof StatusError) return { code: e.code === 0 ? 500 : e.code, message: e.message };
  return { code: 502, message: `the API server could not be reached: ${String(e)}` };
}

/** What an action without the user's own token gets (401). */
export const NeedsToken =
  'actions need your own token (Authorization: Bearer …); the dashboard acts for no one';
