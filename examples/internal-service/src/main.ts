import { createKeyplaneClient, KeyplaneError } from '@keyplane/client';
import { onboardCustomer } from './onboarding.ts';

// biome-ignore lint/style/noProcessEnv: the example is a program of its own, configured by its environment.
const { KEYPLANE_URL: baseUrl, KEYPLANE_ROOT_KEY: rootKey } = process.env;
if (!baseUrl || !rootKey) {
  console.error('Set KEYPLANE_URL (e.g. http://localhost:7070) and KEYPLANE_ROOT_KEY (a root key of the workspace).');
  process.exit(2);
}

const keyplane = createKeyplaneClient({ baseUrl, rootKey });
try {
  const report = await onboardCustomer(keyplane, { id: `cus_${Date.now()}`, name: 'Example Ltd', plan: 'pro' });
  console.log(
    `API ${report.apiId}, key ${report.keyId} (${report.stored.start}…) for ${report.stored.identity?.externalId}`,
  );
  console.log(`verified before revocation: ${report.verifiedBeforeRevocation.code}`);
  console.log(`verified after revocation: ${report.verifiedAfterRevocation.code}`);
} catch (error) {
  if (!(error instanceof KeyplaneError)) throw error;
  console.error(`Keyplane answered ${error.status} ${error.type ?? ''}: ${error.message} (request ${error.requestId})`);
  process.exit(1);
}
