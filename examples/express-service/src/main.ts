import { createApp } from './app.ts';

// biome-ignore lint/style/noProcessEnv: the example is a program of its own, configured by its environment.
const { KEYPLANE_URL, KEYPLANE_ROOT_KEY, PORT = '8080' } = process.env;
if (!KEYPLANE_URL || !KEYPLANE_ROOT_KEY) {
  console.error(
    'Set KEYPLANE_URL (e.g. http://localhost:3000) and KEYPLANE_ROOT_KEY (a root key with api.*.verify_key).',
  );
  process.exit(78);
}

const server = createApp({ keyplaneUrl: KEYPLANE_URL, rootKey: KEYPLANE_ROOT_KEY }).listen(Number(PORT), () => {
  console.log(`express-service listening on http://localhost:${PORT}`);
});
process.once('SIGTERM', () => server.close());
