import type { KeyplaneClient, RouterOutputs } from '@keyplane/client';

export interface Customer {
  /** The customer's id in this service's own records; the key's identity in Keyplane. */
  id: string;
  name: string;
  plan: 'free' | 'pro';
}

export interface OnboardingReport {
  apiId: string;
  keyId: string;
  /** The key as Keyplane stores it: never its secret, only its first characters. */
  stored: RouterOutputs['keys']['getKey'];
  /** Whether the new key verified before it was revoked, and after. */
  verifiedBeforeRevocation: RouterOutputs['keys']['verifyKey'];
  verifiedAfterRevocation: RouterOutputs['keys']['verifyKey'];
}

/**
 * Onboards a customer as a provisioning job would: an API of its own and a key tied to the
 * customer, read back and verified; then, as this is a demonstration, the key is revoked again.
 * Inputs and outputs are the server's types: a misspelt field does not compile.
 */
export async function onboardCustomer(keyplane: KeyplaneClient, customer: Customer): Promise<OnboardingReport> {
  const { apiId } = await keyplane.apis.createApi.mutate({ name: `customer-${customer.id}` });
  const { keyId, key } = await keyplane.keys.createKey.mutate({
    apiId,
    prefix: customer.plan,
    name: customer.name,
    externalId: customer.id,
    meta: { plan: customer.plan },
  });
  // Made together, the two calls travel as one request.
  const [stored, verifiedBeforeRevocation] = await Promise.all([
    keyplane.keys.getKey.query({ keyId }),
    keyplane.keys.verifyKey.mutate({ key }),
  ]);
  await keyplane.keys.deleteKey.mutate({ keyId });
  const verifiedAfterRevocation = await keyplane.keys.verifyKey.mutate({ key });
  return { apiId, keyId, stored, verifiedBeforeRevocation, verifiedAfterRevocation };
}
