import { TransientError } from '../../errors/index.ts';

/** Debian's chromium, as the browser tests use it; CHROMIUM_PATH (config.chromiumPath) points elsewhere. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

// The launch flags of test/http/browser.test.ts that concern a headless print: no sandbox (a
// container's unprivileged user), no GPU, nothing fetched from the network behind our back.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium could not be started or could not print: retried like any transient failure. */
export class PdfPrintError extends TransientError {
  constructor(executablePath: string, cause: unknown) {
    super(
      `could not print the PDF with Chromium at ${executablePath} (install Debian's chromium or set CHROMIUM_PATH): ${
        cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause)
      }`,
      { code: 'PDF_PRINT_FAILED', field: 'CHROMIUM_PATH', rule: 'a Chromium that can start headless', cause },
    );
  }
}

/**
 * Prints server-rendered HTML to an A4 PDF with the Chromium the project already uses. The page
 * loads nothing (its HTML holds its styles, no script, no network): JavaScript is off.
 */
export async function printPdf(html: string, executablePath = DEFAULT_CHROMIUM_PATH): Promise<Buffer> {
  let browser;
  try {
    // Loaded here, not at the top: playwright-core takes ~0.4 s of CPU to load, and every CLI
    // command, export thread and worker imports this module while few ever print a pack.
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath, headless: true, args: ARGS });
    const context = await browser.newContext({ javaScriptEnabled: false, offline: true });
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load' });
    return await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
  } catch (error) {
    throw new PdfPrintError(executablePath, error);
  } finally {
    await browser?.close().catch(() => undefined);
  }
}
