import { createTestDatabase } from '@keyplane/db/testing';
import { createRateLimitEngine } from '@keyplane/ratelimit';
import { adminQuery } from '@keyplane/testing';
import { describe, expect, inject, it } from 'vitest';
import { createReadiness, type Readiness } from '../../src/readiness.ts';
import { withServerOn } from '../appVariants.ts';
import { ERRORS_BASE_URL, useApi } from '../harness.ts';

// GET /v2/readiness: whether a balancer should send this node traffic (docs/contract.md, Readiness).
const api = useApi();

/** The readiness answer of a server that shares the test app's services but checks with `readiness`. */
function readinessWith(readiness: Readiness) {
  return withServerOn(api, { readiness }, (server) => server.request('/v2/readiness', { method: 'GET' }));
}

describe('200', () => {
  it('answers OK without authentication when PostgreSQL, the schema and Redis (when configured) are fine', async () => {
    const reply = await api.request('/v2/readiness', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ meta: { requestId: expect.stringMatching(/^req_/) }, data: { message: 'OK' } });
  });
});

describe('405', () => {
  it('answers another method with Allow: GET', async () => {
    const reply = await api.request('/v2/readiness', { method: 'POST', body: '{}' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET');
  });
});

describe('503', () => {
  const expectNotReady = (reply: Awaited<ReturnType<typeof readinessWith>>, reason: RegExp) => {
    expect(reply.status).toBe(503);
    expect(reply.body.error).toMatchObject({
      status: 503,
      type: `${ERRORS_BASE_URL}/service/application/not_ready`,
      detail: expect.stringMatching(reason),
    });
  };

  it('names the pending migration when the schema is behind this version', async () => {
    const behind = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    try {
      const [latest] = await behind.orm.em
        .getConnection()
        .execute<{ name: string }[]>(
          'delete from mikro_orm_migrations where id = (select max(id) from mikro_orm_migrations) returning name',
        );
      const reply = await readinessWith(
        createReadiness({ orm: behind.orm, rateLimiter: api.services.rateLimiter, redisConfigured: false }),
      );
      expectNotReady(reply, new RegExp(`schema is behind, pending: ${latest?.name}`));
    } finally {
      await behind.drop();
    }
  });

  it('names PostgreSQL when it refuses connections', async () => {
    const closed = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    const name = new URL(closed.url).pathname.slice(1);
    // The database stops taking connections and loses those it had, as when its server goes away.
    await adminQuery(inject('databaseUrl'), `alter database "${name}" allow_connections false`);
    await adminQuery(
      inject('databaseUrl'),
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`,
    );
    try {
      const reply = await readinessWith(
        createReadiness({ orm: closed.orm, rateLimiter: api.services.rateLimiter, redisConfigured: false }),
      );
      expectNotReady(reply, /PostgreSQL failed/);
    } finally {
      await adminQuery(inject('databaseUrl'), `alter database "${name}" allow_connections true`);
      await closed.drop();
    }
  });

  it('names Redis when it is configured and does not answer', async () => {
    const rateLimiter = createRateLimitEngine({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const reply = await readinessWith(createReadiness({ orm: api.orm, rateLimiter, redisConfigured: true }));
      expectNotReady(reply, /Redis failed/);
    } finally {
      await rateLimiter.close();
    }
  });

  it('says so once the node is shutting down', async () => {
    const readiness = createReadiness({ orm: api.orm, rateLimiter: api.services.rateLimiter, redisConfigured: false });
    expect((await readinessWith(readiness)).status).toBe(200);
    readiness.stopping();
    expectNotReady(await readinessWith(readiness), /shutting down/);
  });
});
