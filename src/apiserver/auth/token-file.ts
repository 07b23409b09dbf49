/**
 * The static token file, in kube-apiserver's `--token-auth-file` format: one CSV line per
 * credential, `token,user,uid,"group1,group2"`. `mco apiserver` writes it (mode 0600) on first start
 * and reads it on every start, so an administrator can add or rotate credentials by editing it.
 */
import { err, ok, type Result } from '../../lib/result.js';
import type { UserInfo } from '../resource-store.js';

export interface StaticToken {
  readonly token: string;
  readonly user: UserInfo;
  readonly uid: string;
}

export type TokenFileError =
  | { readonly kind: 'TooFewColumns'; readonly line: number }
  | { readonly kind: 'EmptyToken'; readonly line: number }
  | { readonly kind: 'DuplicateToken'; readonly line: number }
  | { readonly kind: 'UnterminatedQuote'; readonly line: number };

export function describeTokenFileError(e: TokenFileError): string {
  switch (e.kind) {
    case 'TooFewColumns':
      return `token file: line ${e.line}: needs at least 3 columns (token,user,uid)`;
    case 'EmptyToken':
      return `token file: line ${e.line}: empty token`;
    case 'DuplicateToken':
      return `token file: line ${e.line}: duplicate token`;
    case 'UnterminatedQuote':
      return `token file: line ${e.line}: unterminated quoted field`;
  }
}

/** Splits one CSV record (RFC 4180 quoting); undefined if a quote is left open. */
function splitRecord(line: string): string[] | undefined {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quoted) {
      if (c === '"' && line.charAt(i + 1) === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) return undefined;
  fields.push(field);
  return fields;
}

/** Parses the file; blank lines and `#` comments are skipped. */
export function parseTokenFile(text: string): Result<StaticToken[], TokenFileError> {
  const tokens: StaticToken[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const fields = splitRecord(raw);
    if (fields === undefined) return err({ kind: 'UnterminatedQuote', line });
    const [token, name, uid, groups] = fields;
    if (token === undefined || name === undefined || uid === undefined) {
      return err({ kind: 'TooFewColumns', line });
    }
    if (token === '') return err({ kind: 'EmptyToken', line });
    if (seen.has(token)) return err({ kind: 'DuplicateToken', line });
    seen.add(token);
    const groupList = (groups ?? '').split(',').filter((g) => g !== '');
    tokens.push({ token, uid, user: { name, groups: groupList } });
  }
  return ok(tokens);
}

function quote(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** The file text for these tokens (what parseTokenFile reads back). */
export function formatTokenFile(tokens: readonly StaticToken[]): string {
  const lines = tokens.map((t) =>
    [t.token, t.user.name, t.uid, t.user.groups.join(',')].map(quote).join(','),
  );
  return `${lines.join('\n')}\n`;
}
