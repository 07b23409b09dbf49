/**
 * Headless Chromium on the box's dashboard, started the same way by every browser test: Debian's
 * /usr/bin/chromium through playwright-core, a fresh profile removed on close, and the flags that
 * keep it off the network (the machine's network is closed; without them Chromium tries Google's
 * hosts at every start). And the dashboard's token form, filled with a user's token from the
 * box's token file, as a user pastes theirs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { parseTokenFile } from '../../src/apiserver/auth/token-file.js';

const ChromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumSession {
  readonly context: BrowserContext;
  /** The window's first page. */
  readonly page: Page;
  /** Closes the browser and removes its profile; safe to call twice. */
  close(): Promise<void>;
}

export async function openChromium(
  viewport: { readonly width: number; readonly height: number } = { width: 1280, height: 900 },
): Promise<ChromiumSession> {
  const profile = mkdtempSync(join(tmpdir(), 'mco-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ChromiumFlags,
      viewport,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return {
      context,
      page,
      close: async () => {
        await context.close().catch(() => undefined);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}

/** A user's bearer token from the box's API server token file (`DIR/apiserver/tokens.csv`). */
export function boxUserToken(dataDir: string, user: string): string {
  const parsed = parseTokenFile(readFileSync(join(dataDir, 'apiserver/tokens.csv'), 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  const entry = parsed.value.find((t) => t.user.name === user);
  if (entry === undefined) throw new Error(`no token for ${user} in tokens.csv`);
  return entry.token;
}

/** Gives the dashboard page a token through its form (forgetting the one it holds, if any). */
export async function useDashboardToken(page: Page, token: string): Promise<void> {
  if (await page.getByTestId('token-forget').isVisible())
    await page.getByTestId('token-forget').click();
  await page.getByTestId('token-input').fill(token);
  await page.getByTestId('token-use').click();
  await page.getByTestId('token-state').waitFor();
}
