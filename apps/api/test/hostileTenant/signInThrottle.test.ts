import { SIGN_IN_FAILURES_ALLOWED } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../httpServer.ts';
import { callInternal } from '../internal.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';

// Guessing root keys at the dashboard's sign-in: an address gets SIGN_IN_FAILURES_ALLOWED tries per
// window, however it sends them (all at once, behind forged X-Forwarded-For entries, from every
// address of its IPv6 network), on real server processes behind the proxies TRUST_PROXY describes
// (docs/operations.md#client-addresses).

const THROTTLED = 'user/too_many_requests/sign_in_throttled';

/** A server process with this TRUST_PROXY for the tests of one describe. */
function useServer(trustProxy: string | undefined) {
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    server = await startServerProcess(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const ready = () => {
    if (!server) throw new Error('the server is not started yet');
    return server;
  };
  /** Signs in with `rootKey`, the request carrying this X-Forwarded-For (none: undefined). */
  const signIn = (rootKey: string, forwardedFor?: string) => {
    const { url } = ready();
    const headers: Record<string, string> = { 'x-keyplane-dashboard': '1' };
    if (forwardedFor !== undefined) headers['X-Forwarded-For'] = forwardedFor;
    return callInternal(httpClient(url), 'dashboard.signIn', { rootKey }, { headers });
  };
  return {
    get rootKey() {
      return bootstrapRootKey(ready());
    },
    signIn,
    /**
     * Spends an address's whole allowance one wrong try after another, each answered 401: try
     * `attempt` (from 0) carries the X-Forwarded-For that `forwardedFor` makes of it.
     */
    async spendAllowance(forwardedFor: (attempt: number) => string) {
      for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
        expect((await signIn('kproot_guessed', forwardedFor(attempt))).status).toBe(401);
      }
    },
  };
}

const statuses = (replies: { status: number }[]) => {
  const counted = new Map<number, number>();
  for (const { status } of replies) counted.set(status, (counted.get(status) ?? 0) + 1);
  return Object.fromEntries(counted);
};

describe('TRUST_PROXY=true: one proxy, which appends the address it saw', () => {
  const server = useServer('true');

  it('checks only the allowance of 200 wrong tries sent at once, and refuses the rest unchecked', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => server.signIn('kproot_guessed', '203.0.113.1')),
    );
    expect(statuses(replies)).toEqual({ 401: SIGN_IN_FAILURES_ALLOWED, 429: 200 - SIGN_IN_FAILURES_ALLOWED });
    const refused = replies.find((reply) => reply.status === 429);
    expect(refused?.error?.data.type).toBe(THROTTLED);
    // The right key, too, waits out the window.
    expect((await server.signIn(server.rootKey, '203.0.113.1')).status).toBe(429);
  });

  it('takes the address the proxy saw, not what the client wrote to the left of it', async () => {
    await server.spendAllowance((attempt) => `198.18.0.${attempt}, 203.0.113.2`);
    const again = await server.signIn(server.rootKey, '198.18.0.99, 203.0.113.2');
    expect(again.error?.data.type).toBe(THROTTLED);
    // The forged addresses were never counted.
    expect((await server.signIn(server.rootKey, '198.18.0.1')).status).toBe(200);
  });

  it('counts an IPv6 network (/64) as one address, and a neighbouring network apart', async () => {
    await server.spendAllowance((attempt) => `2001:db8:7:1::${(attempt + 1).toString(16)}`);
    expect((await server.signIn(server.rootKey, '2001:db8:7:1:ffff::1')).status).toBe(429);
    expect((await server.signIn(server.rootKey, '2001:db8:7:2::1')).status).toBe(200);
  });

  it('gives back the tries that succeed, however many', async () => {
    for (let attempt = 0; attempt < 2 * SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await server.signIn(server.rootKey, '203.0.113.3')).status).toBe(200);
    }
    await server.spendAllowance(() => '203.0.113.3');
    expect((await server.signIn(server.rootKey, '203.0.113.3')).status).toBe(429);
  });
});

// Proxies configured three more ways: one client's wrong tries, each behind entries it forged to
// the left of what the proxies appended, spend one address's allowance; which address that was
// shows in which of the right key's sign-ins after are throttled (429) and which are let in (200).
const SETTINGS = [
  {
    title: 'TRUST_PROXY=2: two proxies, each appending',
    trustProxy: '2',
    rule: 'takes the address the outer proxy saw: the second entry from the right',
    forged: (attempt: number) => `198.18.1.${attempt}, 203.0.113.4, 10.0.0.${attempt}`,
    throttled: ['198.18.1.99, 203.0.113.4, 10.0.0.99', '203.0.113.4, 10.0.0.1'],
  },
  {
    title: 'TRUST_PROXY=<addresses and ranges>: the proxies named',
    trustProxy: '127.0.0.1, 10.0.0.0/8',
    rule: 'takes the first address from the right that is no trusted proxy',
    forged: (attempt: number) => `198.18.2.${attempt}, 203.0.113.5, 10.1.2.${attempt}`,
    throttled: ['203.0.113.5'],
    // An address that is no proxy's ends the walk: what lies left of it is not believed.
    letIn: ['203.0.113.5, 192.0.2.9'],
  },
  {
    title: 'TRUST_PROXY unset: no proxy',
    trustProxy: undefined,
    rule: 'counts by the connection, whatever X-Forwarded-For says',
    forged: (attempt: number) => `198.18.3.${attempt}`,
    throttled: ['198.18.3.99'],
  },
];
for (const { title, trustProxy, rule, forged, throttled, letIn = [] } of SETTINGS) {
  describe(title, () => {
    const server = useServer(trustProxy);

    it(rule, async () => {
      await server.spendAllowance(forged);
      for (const forwardedFor of throttled) {
        expect([forwardedFor, (await server.signIn(server.rootKey, forwardedFor)).status]).toEqual([forwardedFor, 429]);
      }
      for (const forwardedFor of letIn) {
        expect([forwardedFor, (await server.signIn(server.rootKey, forwardedFor)).status]).toEqual([forwardedFor, 200]);
      }
    });
  });
}
