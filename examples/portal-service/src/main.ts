import { createKeyplaneClient } from '@keyplane/client';
import { createPortalService } from './portalLink.ts';

// biome-ignore lint/style/noProcessEnv: the example is a program of its own, configured by its environment.
const { KEYPLANE_URL: baseUrl, KEYPLANE_ROOT_KEY: rootKey, KEYPLANE_PORTAL_ID: portalId, PORT } = process.env;
if (!baseUrl || !rootKey || !portalId) {
  console.error('Set KEYPLANE_URL, KEYPLANE_ROOT_KEY and KEYPLANE_PORTAL_ID (a portal of the workspace, pc_…).');
  process.exit(2);
}

const port = Number(PORT ?? 3000);
const service = createPortalService({
  keyplane: createKeyplaneClient({ baseUrl, rootKey }),
  portalId,
  returnUrl: `http://localhost:${port}/settings`,
  // A stand-in for the product's own sign-in: whoever the x-user-id header names.
  signedInUser: (request) => {
    const user = request.headers['x-user-id'];
    return typeof user === 'string' && user !== '' ? user : undefined;
  },
});
service.listen(port, () => console.log(`open http://localhost:${port}/settings/api-keys with an x-user-id header`));
