import { fileURLToPath } from 'node:url';
import { build } from 'vite';

/** vitest global setup: the browser tests drive the production build, as the server serves it. */
export async function setup(): Promise<void> {
  await build({ root: fileURLToPath(new URL('..', import.meta.url)), logLevel: 'warn' });
}
