/**
 * The `--listen` flag of the serving commands (API server, dashboard): its own module so a
 * command that only parses it does not load the API server with it.
 */
import { CliError } from './cli-io.js';

/** `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(listen);
  const port = Number(m?.[3]);
  if (m === null || !Number.isInteger(port) || port > 65535) {
    throw new CliError(`--listen ${listen}: expected HOST:PORT, e.g. 127.0.0.1:6443`);
  }
  return { host: m[1] ?? m[2] ?? '', port };
}
