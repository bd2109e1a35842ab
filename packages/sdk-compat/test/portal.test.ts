import type { Unkey } from '@unkey/api';
import type { V2PortalCreateSessionRequestBody } from '@unkey/api/models/components';
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

/** How long a test waits for verifications to reach PostgreSQL (flushed every second; longer on a loaded machine). */
const ANALYTICS_WRITTEN = { timeout: 10_000 };

/** A customer's session the way a provider's backend and the portal page make one. */
async function sessionOf(
  externalId: string,
  scopes: V2PortalCreateSessionRequestBody['scopes'] = ['keys:read', 'keys:reroll'],
): Promise<string> {
  const { data } = (
    await unkey.portal.createSession({
      portal: portalId,
      externalId,
      scopes,
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

  it('getVerifications: the customer’s verifications as the reference’s points, of all their keys or one', async () => {
    const mine = (await unkey.keys.createKey({ apiId, externalId: 'customer_usage' })).data;
    const theirs = (await unkey.keys.createKey({ apiId, externalId: 'someone_else_usage' })).data;
    await unkey.keys.verifyKey({ key: mine.key });
    await unkey.keys.verifyKey({ key: mine.key });
    await unkey.keys.verifyKey({ key: mine.key, permissions: 'documents.read' });
    await unkey.keys.verifyKey({ key: theirs.key });
    const portalSession = await sessionOf('customer_usage', ['keys:read', 'analytics:read']);
    const range = { startTime: Date.now() - 60 * 60 * 1000, endTime: Date.now() + 60 * 60 * 1000 };
    const summed = (points: { total: number; valid: number; insufficientPermissions: number }[]) =>
      points.reduce(
        (sum, point) => ({
          total: sum.total + point.total,
          valid: sum.valid + point.valid,
          insufficientPermissions: sum.insufficientPermissions + point.insufficientPermissions,
        }),
        { total: 0, valid: 0, insufficientPermissions: 0 },
      );

    await expect
      .poll(async () => summed((await unkey.portal.getVerifications({ portalSession }, range)).data), ANALYTICS_WRITTEN)
      .toEqual({ total: 3, valid: 2, insufficientPermissions: 1 });
    const { data } = await unkey.portal.getVerifications({ portalSession }, { ...range, keyId: mine.keyId });
    // Hourly buckets over two hours, zero-filled: two points, or three when startTime falls on the hour.
    expect(data.length).toBeGreaterThanOrEqual(2);
    expect(data.every((point) => point.time % (60 * 60 * 1000) === 0)).toBe(true);
    expect(summed(data)).toEqual({ total: 3, valid: 2, insufficientPermissions: 1 });
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
