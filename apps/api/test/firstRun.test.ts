import { createEmptyDatabase } from '@keyplane/testing';
import { describe, expect, inject, it } from 'vitest';
import { spawnServer } from '../../../bench/server.ts';
import { asBrowser, sessionCookieOf } from './accounts.ts';
import { REDIS_URL } from './harness.ts';
import { callInternal } from './internal.ts';

// npm start on an empty database: beside the root key, a one-time link that creates the first owner.
const redis: Record<string, string> = REDIS_URL ? { REDIS_URL } : {};

describe('a server started on an empty database', () => {
  it('prints a setup link on PUBLIC_URL that creates the owner of the first workspace, once', async () => {
    const empty = await createEmptyDatabase(inject('databaseUrl'));
    const server = await spawnServer({
      DATABASE_URL: empty.url,
      PUBLIC_URL: 'https://keyplane.example.test',
      ...redis,
    });
    try {
      expect(server.rootKey).toBeDefined();
      expect(server.setupUrl).toMatch(/^https:\/\/keyplane\.example\.test\/dashboard\/setup#[A-Za-z0-9_-]{43}$/);
      const token = server.setupUrl?.split('#')[1] ?? '';
      const at = { fetch: (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init) };
      const owner = { token, email: 'first@example.test', name: 'First Owner', password: 'the very first passphrase' };
      const made = await callInternal<{ userId: string; workspaceId: string }>(
        at,
        'account.setUpOwner',
        owner,
        asBrowser,
      );
      expect(made.status).toBe(200);
      const me = await callInternal<{ role: string }>(at, 'account.me', undefined, {
        session: sessionCookieOf(made),
      });
      expect(me.data.role).toBe('owner');
      const again = await callInternal(at, 'account.setUpOwner', { ...owner, email: 'second@example.test' }, asBrowser);
      expect(again.status).toBe(401);
    } finally {
      await server.stop();
      await empty.drop();
    }
  }, 60_000);
});
