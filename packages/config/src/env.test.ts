import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnvError, loadBenchEnv, loadEnv, variablesRead } from './env.ts';

const turbo = JSON.parse(readFileSync(new URL('../../../turbo.json', import.meta.url), 'utf8')) as {
  tasks: Record<string, { env?: string[] }>;
};

// Turbo hands a task only the variables its definition lists, and hashes those: one left out would
// not reach the server under `npm run dev`, and a test run against another database would be served
// from the cache.
describe('every variable the configuration reads', () => {
  it.each(['dev', 'test'])('is passed to the %s task by turbo', (task) => {
    expect(variablesRead().length).toBeGreaterThan(0);
    expect(turbo.tasks[task]?.env ?? []).toEqual(expect.arrayContaining(variablesRead()));
  });
});

describe('RATELIMIT_REDIS_FAILURE', () => {
  it('is local unless set', () => {
    expect(loadEnv({}).RATELIMIT_REDIS_FAILURE).toBe('local');
  });

  it.each(['local', 'open', 'closed'])('takes %s', (mode) => {
    expect(loadEnv({ RATELIMIT_REDIS_FAILURE: mode }).RATELIMIT_REDIS_FAILURE).toBe(mode);
  });

  it('refuses anything else, naming the variable', () => {
    const load = () => loadEnv({ RATELIMIT_REDIS_FAILURE: 'fail-open' });
    expect(load).toThrow(EnvError);
    expect(load).toThrow(/RATELIMIT_REDIS_FAILURE/);
  });
});

describe('SHUTDOWN_DRAIN_DELAY_MS', () => {
  it('is 5 s unless set, within a stop of 25 s', () => {
    expect(loadEnv({})).toMatchObject({ SHUTDOWN_DRAIN_DELAY_MS: 5000, SHUTDOWN_TIMEOUT_MS: 25_000 });
    expect(loadEnv({ SHUTDOWN_DRAIN_DELAY_MS: '0' }).SHUTDOWN_DRAIN_DELAY_MS).toBe(0);
  });

  it('refuses what is no whole number of milliseconds, naming the variable', () => {
    expect(() => loadEnv({ SHUTDOWN_DRAIN_DELAY_MS: '-1' })).toThrow(/SHUTDOWN_DRAIN_DELAY_MS/);
    expect(() => loadEnv({ SHUTDOWN_DRAIN_DELAY_MS: '1.5' })).toThrow(/SHUTDOWN_DRAIN_DELAY_MS/);
  });
});

describe('TRUST_PROXY', () => {
  it('trusts no proxy unless set', () => {
    expect(loadEnv({}).TRUST_PROXY).toBe(false);
    expect(loadEnv({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
  });

  it('is one proxy for true, and a number of proxies for a number', () => {
    expect(loadEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toEqual({ hops: 1 });
    expect(loadEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toEqual({ hops: 2 });
  });

  it("is the proxies' addresses and CIDR ranges, IPv4 and IPv6", () => {
    expect(loadEnv({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,fd00::/8, ::1' }).TRUST_PROXY).toEqual({
      proxies: ['10.0.0.0/8', '192.0.2.1', 'fd00::/8', '::1'],
    });
  });

  it.each(['yes', '10.0.0.0/33', 'fd00::/129', '10.0.0.1, proxy.internal', '10.0.0.0/8/1', '-1'])(
    'refuses %s, naming the variable',
    (value) => {
      const load = () => loadEnv({ TRUST_PROXY: value });
      expect(load).toThrow(EnvError);
      expect(load).toThrow(/TRUST_PROXY/);
    },
  );
});

describe('EVENT_SPOOL_DIR', () => {
  it('is the spool directory under DATA_DIR when unset', () => {
    expect(loadEnv({ DATA_DIR: '/var/lib/keyplane' }).EVENT_SPOOL_DIR).toBe('/var/lib/keyplane/spool');
  });

  it('is made absolute', () => {
    expect(loadEnv({ EVENT_SPOOL_DIR: 'spool' }).EVENT_SPOOL_DIR).toBe(`${process.cwd()}/spool`);
  });

  it('is refused, naming it, when it is too long to hold a Unix socket', () => {
    expect(() => loadEnv({ EVENT_SPOOL_DIR: `/${'d'.repeat(85)}` })).toThrow(EnvError);
    expect(() => loadEnv({ DATA_DIR: `/${'d'.repeat(80)}` })).toThrow(
      /EVENT_SPOOL_DIR: must be a path of at most 85 bytes/,
    );
  });
});

describe('EVENT_SPOOL_MAX_BYTES', () => {
  it('is 1 GiB by default and at least 1 MiB', () => {
    expect(loadEnv({}).EVENT_SPOOL_MAX_BYTES).toBe(1024 ** 3);
    expect(() => loadEnv({ EVENT_SPOOL_MAX_BYTES: '1000' })).toThrow(/EVENT_SPOOL_MAX_BYTES/);
  });
});

describe('LOG_LEVEL', () => {
  it('is info unless set', () => {
    expect(loadEnv({}).LOG_LEVEL).toBe('info');
  });

  it.each(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])('takes %s', (level) => {
    expect(loadEnv({ LOG_LEVEL: level }).LOG_LEVEL).toBe(level);
  });

  it.each(['verbose', 'INFO', '30'])('refuses %s, naming the variable', (level) => {
    expect(() => loadEnv({ LOG_LEVEL: level })).toThrow(EnvError);
    expect(() => loadEnv({ LOG_LEVEL: level })).toThrow(/LOG_LEVEL: /);
  });
});

describe('BENCH_COMPARE_LOGGING', () => {
  it('is off unless set to 1', () => {
    expect(loadBenchEnv({}).BENCH_COMPARE_LOGGING).toBe(false);
    expect(loadBenchEnv({ BENCH_COMPARE_LOGGING: '' }).BENCH_COMPARE_LOGGING).toBe(false);
    expect(loadBenchEnv({ BENCH_COMPARE_LOGGING: '0' }).BENCH_COMPARE_LOGGING).toBe(false);
    expect(loadBenchEnv({ BENCH_COMPARE_LOGGING: '1' }).BENCH_COMPARE_LOGGING).toBe(true);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => loadBenchEnv({ BENCH_COMPARE_LOGGING: 'yes' })).toThrow(/BENCH_COMPARE_LOGGING/);
  });
});

describe('SOAK_MINUTES, SOAK_NODES and SOAK_CONNECTIONS', () => {
  it('are 10 minutes, 3 nodes and 48 connections unless set', () => {
    expect(loadBenchEnv({})).toMatchObject({ SOAK_MINUTES: 10, SOAK_NODES: 3, SOAK_CONNECTIONS: 48 });
  });

  it('take whole numbers', () => {
    expect(loadBenchEnv({ SOAK_MINUTES: '1', SOAK_NODES: '2', SOAK_CONNECTIONS: '20' })).toMatchObject({
      SOAK_MINUTES: 1,
      SOAK_NODES: 2,
      SOAK_CONNECTIONS: 20,
    });
  });

  it.each([
    ['SOAK_MINUTES', 'ten'],
    ['SOAK_MINUTES', '0'],
    ['SOAK_NODES', '0'],
    ['SOAK_NODES', '1.5'],
    ['SOAK_CONNECTIONS', '-1'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadBenchEnv({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });
});

describe('REDIS_URL and REDIS_CLUSTER_NODES', () => {
  const cluster = [
    { host: '10.0.0.1', port: 7000 },
    { host: 'redis-2.internal', port: 7001 },
  ];

  it('are one Redis server for a redis:// or rediss:// URL', () => {
    expect(loadEnv({ REDIS_URL: 'rediss://cache:6380/1' })).toMatchObject({
      REDIS_URL: 'rediss://cache:6380/1',
      REDIS_CLUSTER: undefined,
    });
  });

  it('are a Redis Cluster for a redis+cluster:// URL, with its credentials decoded', () => {
    expect(loadEnv({ REDIS_URL: 'redis+cluster://10.0.0.1:7000,redis-2.internal:7001' })).toMatchObject({
      REDIS_URL: undefined,
      REDIS_CLUSTER: { nodes: cluster },
    });
    expect(loadEnv({ REDIS_URL: 'redis+cluster://app:p%40ss:word@[::1]:7000/' }).REDIS_CLUSTER).toEqual({
      nodes: [{ host: '::1', port: 7000 }],
      username: 'app',
      password: 'p@ss:word',
    });
  });

  it('are a Redis Cluster for REDIS_CLUSTER_NODES', () => {
    expect(loadEnv({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001' })).toMatchObject({
      REDIS_URL: undefined,
      REDIS_CLUSTER: { nodes: cluster },
    });
  });

  it('are no Redis when neither is set', () => {
    expect(loadEnv({ REDIS_URL: '', REDIS_CLUSTER_NODES: '' })).toMatchObject({
      REDIS_URL: undefined,
      REDIS_CLUSTER: undefined,
    });
  });

  it.each([
    ['REDIS_URL', 'http://cache:6379', /REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL, or redis\+cluster:\/\//],
    ['REDIS_URL', 'redis+cluster://10.0.0.1:7000/0', /REDIS_URL: .*a cluster has no database number/],
    ['REDIS_URL', 'redis+cluster://10.0.0.1', /REDIS_URL: must list cluster nodes as host:port.*not "10.0.0.1"/],
    ['REDIS_CLUSTER_NODES', '10.0.0.1:7000,', /REDIS_CLUSTER_NODES: must list cluster nodes as host:port.*not ""/],
    ['REDIS_CLUSTER_NODES', '10.0.0.1:70000', /REDIS_CLUSTER_NODES: .*not "10.0.0.1:70000"/],
  ])('refuse %s=%s, naming the variable and the mistake', (name, value, message) => {
    expect(() => loadEnv({ [name]: value })).toThrow(EnvError);
    expect(() => loadEnv({ [name]: value })).toThrow(message);
  });

  it('are refused together: a server and a cluster at once', () => {
    const load = () => loadEnv({ REDIS_URL: 'redis://cache:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' });
    expect(load).toThrow(/REDIS_CLUSTER_NODES: set either it or REDIS_URL, not both/);
  });
});

describe('the LIMIT_ variables (docs/operations.md#limits)', () => {
  it('have the documented defaults', () => {
    expect(loadEnv({})).toMatchObject({
      LIMIT_RATELIMIT_NAMESPACES: 1000,
      LIMIT_RATELIMIT_OVERRIDES: 10_000,
      LIMIT_RATELIMIT_WILDCARD_OVERRIDES: 100,
      LIMIT_ROLES: 1000,
      LIMIT_PERMISSIONS: 10_000,
      LIMIT_TRPC_BATCH_SIZE: 10,
    });
  });

  it('take whole numbers', () => {
    expect(loadEnv({ LIMIT_ROLES: '5000', LIMIT_TRPC_BATCH_SIZE: '25' })).toMatchObject({
      LIMIT_ROLES: 5000,
      LIMIT_TRPC_BATCH_SIZE: 25,
    });
  });

  it.each([
    ['LIMIT_PERMISSIONS', '0'],
    ['LIMIT_ROLES', 'many'],
    ['LIMIT_RATELIMIT_WILDCARD_OVERRIDES', '10001'],
    ['LIMIT_TRPC_BATCH_SIZE', '9'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    expect(() => loadEnv({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });

  it('refuse a batch limit the dashboard could not work with, saying why', () => {
    expect(() => loadEnv({ LIMIT_TRPC_BATCH_SIZE: '5' })).toThrow(
      /the dashboard and @keyplane\/client send batches of up to 10 calls/,
    );
  });
});
