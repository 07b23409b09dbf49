/** An API server refusal as the page shows it: its code and message (502 when unreachable). */
import { StatusError } from '../api/meta/v1/status-error.js';

export function refusal(e: unknown): { code: number; message: string } {
  if (e instanceof StatusError) return { code: e.code === 0 ? 500 : e.code, message: e.message };
  return { code: 502, message: `the API server could not be reached: ${String(e)}` };
}
