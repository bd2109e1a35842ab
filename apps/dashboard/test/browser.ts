import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs the `chromium` package); Playwright downloads no browser here. */
const CHROMIUM = '/usr/bin/chromium';

export const chromiumInstalled = existsSync(CHROMIUM);

// Headless as root on a closed network: without these, Chromium retries Google services at every start.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

const SCREENSHOTS = fileURLToPath(new URL('../test-artifacts/screenshots/', import.meta.url));

/** Keeps a picture of a main screen as a test artifact (test-artifacts/screenshots). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Fails the test on any script error or failed request the page reports (an expected 401 is allowed by the caller). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  return errors;
}
