import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const SCREENSHOTS = fileURLToPath(new URL('../test-artifacts/screenshots/', import.meta.url));

/** Keeps a picture of the page as a test artifact (apps/portal/test-artifacts/screenshots, gitignored). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
