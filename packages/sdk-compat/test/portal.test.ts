import type { Unkey } from '@unkey/api';
import { UnauthorizedErrorResponse } from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.portal.*` of @unkey/api against a Keyplane server: the reference's customer-portal methods
// as its SDK sends them (the session as the `portal_session` cookie) and parses their answers.
// The portal itself is made with Keyplane's own procedure, which the reference lacks.

const keyplane = useKeyplane();
let unkey: Unkey;
let portalId: string;
let apiId: string;

async function v2<T>(procedure: string, body: unknown): Promise<T> {
  const response = await fetch(`${keyplane.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${keyplane.rootKey}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

beforeAll(async () => {
  unkey = keyplane.unkey;
  apiId = (await unkey.apis.createApi({ name: 'sdk-portal' })).data.apiId;
  ({ portalId } = await v2<{ portalId: string }>('portal.createPortal', { apiId, displayName: 'Acme' }));
});

/** A customer's session the way a provider's backend and the portal page make one. */
async function sessionOf(externalId: string): Promise<string> {
  const { data } = (
    await unkey.portal.createSession({
      portal: portalId,
      externalId,
      scopes: ['keys:read', 'keys:reroll'],
      returnUrl: 'https://app.example.test/settings',
    })
  ).result;
  expect(data.id).toMatch(/^ps_/);
  const code = new URL(data.url).searchParams.get('code') ?? '';
  expect(code).toMatch(/^pst_/);
  const exchanged = (await unkey.portal.exchangeCode({ code })).result.data;
  expect(exchanged.expiresAt).toBeGreaterThan(Date.now());
  return exchanged.accessToken;
}

describe('200', () => {
  it('createSession, exchangeCode, listKeys and rerollKey: a customer lists and rolls only their own keys', async () => {
    const mine = (await unkey.keys.createKey({ apiId, externalId: 'customer_sdk', name: 'mine' })).data;
    await unkey.keys.createKey({ apiId, externalId: 'someone_else', name: 'theirs' });
    const portalSession = await sessionOf('customer_sdk');

    const listed = (await unkey.portal.listKeys({ portalSession }, {})).result.data;
    expect(listed.map((key) => key.keyId)).toEqual([mine.keyId]);
    expect(listed[0]?.name).toBe('mine');

    const rolled = await unkey.portal.rerollKey({ portalSession }, { keyId: mine.keyId, expiration: 0 });
    expect(rolled.data.keyId).not.toBe(mine.keyId);
    const verified = await unkey.keys.verifyKey({ key: rolled.data.key });
    expect(verified.data.valid).toBe(true);
  });
});

describe('401', () => {
  it('refuses a used code and a session token that is not one', async () => {
    const { data } = (await unkey.portal.createSession({ portal: portalId, externalId: 'once', scopes: ['keys:read'] }))
      .result;
    const code = new URL(data.url).searchParams.get('code') ?? '';
    await unkey.portal.exchangeCode({ code });
    await rejection(unkey.portal.exchangeCode({ code }), UnauthorizedErrorResponse, 401);
    await rejection(unkey.portal.listKeys({ portalSession: 'pat_not_a_session' }, {}), UnauthorizedErrorResponse, 401);
  });
});
