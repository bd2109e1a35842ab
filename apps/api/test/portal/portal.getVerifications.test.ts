import { describe, expect, it } from 'vitest';
import { itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { customerCases, expectTrpcProblem, newCustomer, signInCustomer, useCustomer } from '../portal.ts';

// A customer's usage: their verifications per bucket and outcome, in total or of one key.
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'gwen');

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const cases = customerCases(api, workspace, 'portal.getVerifications', (keyId) => ({
  keyId,
  startTime: 0,
  endTime: DAY_MS,
}));
const NO_USAGE = {
  total: 0,
  valid: 0,
  rateLimited: 0,
  insufficientPermissions: 0,
  forbidden: 0,
  disabled: 0,
  expired: 0,
  usageExceeded: 0,
};
type UsagePoint = typeof NO_USAGE & { time: number };

/** A customer's usage points added up over time. */
function summed(points: UsagePoint[]): typeof NO_USAGE {
  const sum = { ...NO_USAGE };
  for (const { time: _time, ...counts } of points) {
    for (const [field, count] of Object.entries(counts)) sum[field as keyof typeof NO_USAGE] += count;
  }
  return sum;
}

describe('200', () => {
  it('answers the customer’s verifications per bucket and outcome, in total or of one key, and no one else’s', async () => {
    const rita = await newCustomer(api, workspace.rootKey, 'rita');
    const sam = await signInCustomer(api, workspace.rootKey, rita.portalId, 'sam');
    const first = await rita.createKey();
    const second = await rita.createKey();
    const other = await sam.createKey();
    for (const key of [first.key, first.key, second.key, other.key])
      await api.call('keys.verifyKey', { key }, workspace.rootKey);
    // A key without permissions asked for one: INSUFFICIENT_PERMISSIONS.
    await api.call('keys.verifyKey', { key: first.key, permissions: 'documents.read' }, workspace.rootKey);
    await api.services.verifications.flush();
    const range = { startTime: Date.now() - HOUR_MS, endTime: Date.now() + HOUR_MS };

    const all = await rita.call<UsagePoint[]>('portal.getVerifications', range);
    expect(all.status).toBe(200);
    // Hourly over two hours: two buckets (three when startTime falls on the hour), zero-filled, oldest first.
    expect(all.data.length).toBeGreaterThanOrEqual(2);
    all.data.forEach((point, index) => {
      expect(point.time % HOUR_MS).toBe(0);
      if (index > 0) expect(point.time - (all.data[index - 1]?.time ?? 0)).toBe(HOUR_MS);
    });
    expect(summed(all.data)).toEqual({ ...NO_USAGE, total: 4, valid: 3, insufficientPermissions: 1 });

    const one = await rita.call<UsagePoint[]>('portal.getVerifications', { ...range, keyId: first.keyId });
    expect(summed(one.data)).toEqual({ ...NO_USAGE, total: 3, valid: 2, insufficientPermissions: 1 });

    // At /v2 the points are the envelope's data, as the reference's SDK parses them.
    const v2 = await api.post<UsagePoint[]>('portal.getVerifications', range, rita.accessToken);
    expect(v2.status).toBe(200);
    expect(v2.body.data).toEqual(all.data);
  });

  it('answers days (UTC) for a range over 7 days, zero-filled for a customer without keys', async () => {
    const startTime = Date.UTC(2026, 0, 1);
    const reply = await customer.call<UsagePoint[]>('portal.getVerifications', {
      startTime,
      endTime: startTime + 8 * DAY_MS,
    });
    expect(reply.data.map((point) => point.time)).toEqual(
      Array.from({ length: 8 }, (_, day) => startTime + day * DAY_MS),
    );
    expect(summed(reply.data)).toEqual(NO_USAGE);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.getVerifications', () => customer.accessToken, [
    [{ endTime: DAY_MS }, 'body.startTime'],
    [{ startTime: 0 }, 'body.endTime'],
    [{ startTime: -1, endTime: DAY_MS }, 'body.startTime'],
    [{ startTime: 0, endTime: '86400000' }, 'body.endTime'],
    [{ startTime: 0.5, endTime: DAY_MS }, 'body.startTime'],
    [{ startTime: 0, endTime: DAY_MS, keyId: 'ab' }, 'body.keyId'],
    [{ startTime: 0, endTime: DAY_MS, keyId: 7 }, 'body.keyId'],
    // The portal decides the API: a customer cannot name another.
    [{ startTime: 0, endTime: DAY_MS, apiId: 'api_other' }, 'body.apiId'],
    // A range must run forwards, and over 400 days at the most.
    [{ startTime: DAY_MS, endTime: DAY_MS }, 'body.endTime'],
    [{ startTime: 0, endTime: 401 * DAY_MS }, 'body.endTime'],
  ]);

  it('refuses a range that runs backwards at /trpc too', async () => {
    const backwards = await customer.call('portal.getVerifications', { startTime: 10, endTime: 5 });
    expectTrpcProblem(backwards, 400, 'service/application/invalid_input');
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => cases.refusesWithoutTheScope('analytics:read'));

describe('404', () => cases.answersKeyNotFound());

describe('cross-customer isolation', () => cases.keepsCustomersApart());
