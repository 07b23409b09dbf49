/**
 * Errors as kubectl prints them (cmdutil.StandardErrorMessage): a Status from the server as
 * `Error from server (NotFound): nodes "x" not found`, a refused connection as `The connection to
 * the server HOST was refused - did you specify the right host or port?`.
 */
import { StatusError } from '../api/meta/v1/status-error.js';
import { CliError } from '../shell/cli-io.js';

function refused(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if ((c as { code?: unknown }).code === 'ECONNREFUSED' || c.message.includes('ECONNREFUSED'))
      return true;
  }
  return false;
}

/** The line kubectl prints for a server's Status. */
export function serverErrorText(e: StatusError): string {
  return e.reason === ''
    ? `Error from server: ${e.message}`
    : `Error from server (${e.reason}): ${e.message}`;
}

/** `e` as the CliError kubectl would have printed, or `e` itself when kubectl has no wording. */
export function kubectlError(e: unknown, server: string): unknown {
  if (e instanceof CliError) return e;
  if (e instanceof StatusError) return new CliError(serverErrorText(e), { plain: true, cause: e });
  if (refused(e)) {
    const host = URL.canParse(server) ? new URL(server).host : server;
    return new CliError(
      `The connection to the server ${host} was refused - did you specify the right host or port?`,
      { plain: true, cause: e },
    );
  }
  return e;
}
