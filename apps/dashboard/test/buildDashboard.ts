import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/**
 * vitest global setup: the browser tests drive the production build, as the server serves it; the
 * portal page's too, which the Portal tab's "preview as a customer" opens.
 */
export async function setup(): Promise<void> {
  for (const app of ['..', '../../portal']) {
    await build({ root: fileURLToPath(new URL(app, import.meta.url)), logLevel: 'warn' });
  }
}
