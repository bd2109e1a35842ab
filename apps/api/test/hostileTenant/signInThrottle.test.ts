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
  return {
    get rootKey() {
      return bootstrapRootKey(ready());
    },
    /** Signs in with `rootKey`, the request carrying this X-Forwarded-For (none: undefined). */
    signIn(rootKey: string, forwardedFor?: string) {
      const { url } = ready();
      const headers: Record<string, string> = { 'x-keyplane-dashboard': '1' };
      if (forwardedFor !== undefined) headers['X-Forwarded-For'] = forwardedFor;
      return callInternal(httpClient(url), 'dashboard.signIn', { rootKey }, { headers });
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
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      const forged = `198.18.0.${attempt}`;
      expect((await server.signIn('kproot_guessed', `${forged}, 203.0.113.2`)).status).toBe(401);
    }
    const again = await server.signIn(server.rootKey, '198.18.0.99, 203.0.113.2');
    expect(again.error?.data.type).toBe(THROTTLED);
    // The forged addresses were never counted.
    expect((await server.signIn(server.rootKey, '198.18.0.1')).status).toBe(200);
  });

  it('counts an IPv6 network (/64) as one address, and a neighbouring network apart', async () => {
    for (let attempt = 1; attempt <= SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await server.signIn('kproot_guessed', `2001:db8:7:1::${attempt.toString(16)}`)).status).toBe(401);
    }
    expect((await server.signIn(server.rootKey, '2001:db8:7:1:ffff::1')).status).toBe(429);
    expect((await server.signIn(server.rootKey, '2001:db8:7:2::1')).status).toBe(200);
  });

  it('gives back the tries that succeed, however many', async () => {
    for (let attempt = 0; attempt < 2 * SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await server.signIn(server.rootKey, '203.0.113.3')).status).toBe(200);
    }
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await server.signIn('kproot_guessed', '203.0.113.3')).status).toBe(401);
    }
    expect((await server.signIn(server.rootKey, '203.0.113.3')).status).toBe(429);
  });
});

describe('TRUST_PROXY=2: two proxies, each appending', () => {
  const server = useServer('2');

  it('takes the address the outer proxy saw: the second entry from the right', async () => {
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      const forged = `198.18.1.${attempt}`;
      expect((await server.signIn('kproot_guessed', `${forged}, 203.0.113.4, 10.0.0.${attempt}`)).status).toBe(401);
    }
    expect((await server.signIn(server.rootKey, '198.18.1.99, 203.0.113.4, 10.0.0.99')).status).toBe(429);
    expect((await server.signIn(server.rootKey, '203.0.113.4, 10.0.0.1')).status).toBe(429);
  });
});

describe('TRUST_PROXY=<addresses and ranges>: the proxies named', () => {
  const server = useServer('127.0.0.1, 10.0.0.0/8');

  it('takes the first address from the right that is no trusted proxy', async () => {
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      const forged = `198.18.2.${attempt}`;
      expect((await server.signIn('kproot_guessed', `${forged}, 203.0.113.5, 10.1.2.${attempt}`)).status).toBe(401);
    }
    expect((await server.signIn(server.rootKey, '203.0.113.5')).status).toBe(429);
    // An address that is no proxy's ends the walk: what lies left of it is not believed.
    expect((await server.signIn(server.rootKey, '203.0.113.5, 192.0.2.9')).status).toBe(200);
  });
});

describe('TRUST_PROXY unset: no proxy', () => {
  const server = useServer(undefined);

  it('counts by the connection, whatever X-Forwarded-For says', async () => {
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await server.signIn('kproot_guessed', `198.18.3.${attempt}`)).status).toBe(401);
    }
    expect((await server.signIn(server.rootKey, '198.18.3.99')).status).toBe(429);
  });
});
