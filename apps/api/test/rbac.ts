import { expect } from 'vitest';
import { type Api, createTestKey } from './harness.ts';

// What the permissions.* tests share: keys holding roles or permissions, and their verification.

export interface CreatedKey {
  keyId: string;
  key: string;
}

export function createKeyWith(
  api: Api,
  rootKey: string,
  apiId: string,
  grants: { roles?: string[]; permissions?: string[] },
): Promise<CreatedKey> {
  return createTestKey(api, rootKey, { apiId, ...grants });
}

/** The verification code for this permissions query. */
export async function verifyCode(api: Api, rootKey: string, key: string, permissions: string): Promise<string> {
  const reply = await api.call('keys.verifyKey', { key, permissions }, rootKey);
  expect(reply.status).toBe(200);
  return reply.body.data.code;
}

/**
 * Verifies twice, so the key is in the node's cache afterwards (the first read may race the NOTIFY
 * of the key's creation and not be cached), and answers the second code.
 */
export async function verifyWarm(api: Api, rootKey: string, key: string, permissions: string): Promise<string> {
  await verifyCode(api, rootKey, key, permissions);
  return verifyCode(api, rootKey, key, permissions);
}
