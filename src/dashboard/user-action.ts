/**
 * What every dashboard action does before it acts: the caller's own bearer token (400 when
 * malformed, 401 when absent: the dashboard acts for no one), the API access that turns it into a
 * client (503 without one), and, for actions that take one, a small JSON body (413 past
 * `maxBody`, 400 when it is not JSON; an empty body is `{}`).
 */
import type { Context } from 'hono';
import type { ResourceClient } from '../ports/resource-client.js';
import type { UserApiAccess } from '../ports/user-api-access.js';
import { NeedsToken } from './api-refusal.js';
import { bearerToken } from './bearer-token.js';

export type UserAction =
  { readonly client: ResourceClient; readonly body: unknown } | { readonly refused: Response };

export async function userAction(
  c: Context,
  access: UserApiAccess | undefined,
  maxBody?: number,
): Promise<UserAction> {
  const token = bearerToken(c.req.header('authorization'));
  if (!token.ok) return { refused: c.json({ error: token.error }, 400) };
  if (token.value === undefined) return { refused: c.json({ error: NeedsToken }, 401) };
  if (access === undefined)
    return { refused: c.json({ error: 'the dashboard has no API access for this' }, 503) };
  const client = access.client(token.value);
  if (maxBody === undefined) return { client, body: undefined };
  const text = await c.req.text();
  if (text.length > maxBody)
    return { refused: c.json({ error: `the body is longer than ${maxBody} bytes` }, 413) };
  if (text.trim() === '') return { client, body: {} };
  try {
    return { client, body: JSON.parse(text) as unknown };
  } catch {
    return { refused: c.json({ error: 'the body is not JSON' }, 400) };
  }
}
