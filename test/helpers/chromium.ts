import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core, as the browser tests use it: headless, a new empty
 * profile per context (no cookie survives from one to another), no background networking (this
 * machine's closed network refuses it), and an office host name mapped to the test server so the
 * origin is neither localhost nor HTTPS.
 */
// Debian's package by default; CHROMIUM_PATH points elsewhere (bash .ci/run installs the package).
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const OFFICE_HOST = 'ledgerline.office.test';
export const CHROMIUM_ARGS = [
  `--host-resolver-rules=MAP ${OFFICE_HOST} 127.0.0.1`,
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
}

/** Browser contexts on profiles of their own, closed and removed by close(). */
export class Browsers {
  private readonly profiles: string[] = [];
  private readonly contexts: BrowserContext[] = [];

  async open(): Promise<BrowserContext> {
    const profile = await mkdtemp(path.join(tmpdir(), 'll-chromium-'));
    this.profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      acceptDownloads: true,
    });
    this.contexts.push(context);
    return context;
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close();
    for (const profile of this.profiles) await rm(profile, { recursive: true, force: true });
  }
}

/** Signs in on the sign-in form as a person does; the page ends on the exports page. */
export async function signInWithToken(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('input[name="token"]', token);
  await Promise.all([page.waitForURL(`${base}/`), page.click('button[type="submit"]')]);
}

/** The page's address for the browser (the office host) and for Node (loopback), once it listens. */
export async function listenForBrowser(app: {
  listen: (o: { host: string; port: number }) => Promise<unknown>;
  server: { address: () => unknown };
}): Promise<{ base: string; direct: string }> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number } | null;
  const port = address?.port ?? 0;
  return { base: `http://${OFFICE_HOST}:${port}`, direct: `http://127.0.0.1:${port}` };
}
