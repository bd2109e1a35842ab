import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useWorkspaceWithApi } from './fixtures.ts';
import { REDIS_URL, useApi } from './harness.ts';
import { startServerProcess } from './serverProcess.ts';

const api = useApi();
const setup = useWorkspaceWithApi(api);
const { newKey } = setup;

/** One sample's value from the Prometheus text, by metric name and exact labels; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const rendered = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .join(',');
  const series = rendered === '' ? name : `${name}{${rendered}}`;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const response = await api.fetch('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('GET /metrics', () => {
  it('is Prometheus text: each family once, with its help and type, then well-formed samples', async () => {
    await api.call('keys.verifyKey', { key: 'pay_nothing_here' }, setup.workspace.rootKey);
    const text = await scrape();
    const families = new Map<string, string[]>();
    let family = '';
    for (const line of text.split('\n').filter((line) => line !== '')) {
      const described = /^# (HELP|TYPE) (\w+) /.exec(line);
      if (described) {
        family = described[2] as string;
        families.set(family, [...(families.get(family) ?? []), described[1] as string]);
        continue;
      }
      expect(line).toMatch(/^\w+(\{\w+="[^"]*"(,\w+="[^"]*")*\})? -?[\d.e+-]+$|^\w+(\{.*\})? (NaN|[+-]Inf)$/);
      expect(line.startsWith(family)).toBe(true);
    }
    for (const [name, described] of families) expect([name, described]).toEqual([name, ['HELP', 'TYPE']]);
    expect([...families.keys()]).toEqual(
      expect.arrayContaining(['keyplane_http_requests_total', 'keyplane_http_request_duration_seconds']),
    );
  });

  it('counts requests by procedure and status, with their latency', async () => {
    const before = await scrape();
    const labels = { route: 'keys.verifyKey', status: '200' };
    const { key } = await newKey();
    for (let call = 0; call < 3; call++) await api.call('keys.verifyKey', { key }, setup.workspace.rootKey);
    const after = await scrape();
    expect(
      (sample(after, 'keyplane_http_requests_total', labels) ?? 0) -
        (sample(before, 'keyplane_http_requests_total', labels) ?? 0),
    ).toBe(3);
    expect(sample(after, 'keyplane_http_request_duration_seconds_count', labels)).toBe(
      sample(after, 'keyplane_http_requests_total', labels),
    );
    expect(
      sample(after, 'keyplane_http_request_duration_seconds_bucket', { le: '+Inf', ...labels }),
    ).toBeGreaterThanOrEqual(3);
  });

  it('counts verifications by outcome, and the key cache by hit and miss', async () => {
    const before = await scrape();
    const { key, keyId } = await newKey();
    await api.call('keys.verifyKey', { key }, setup.workspace.rootKey);
    await api.call('keys.verifyKey', { key }, setup.workspace.rootKey);
    await api.call('keys.updateKey', { keyId, enabled: false }, setup.workspace.rootKey);
    await api.call('keys.verifyKey', { key }, setup.workspace.rootKey);
    await api.call('keys.verifyKey', { key: 'pay_not_a_key_of_anyone' }, setup.workspace.rootKey);
    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(grew('keyplane_verifications_total', { outcome: 'VALID' })).toBe(2);
    expect(grew('keyplane_verifications_total', { outcome: 'DISABLED' })).toBe(1);
    expect(grew('keyplane_verifications_total', { outcome: 'NOT_FOUND' })).toBe(1);
    // Outcomes not seen yet are there at 0, so that rates start from the first scrape.
    expect(sample(after, 'keyplane_verifications_total', { outcome: 'EXPIRED' })).toBeGreaterThanOrEqual(0);
    // First sight of the key reads it, the second is served from memory, and updating it forgets it.
    expect(grew('keyplane_cache_lookups_total', { cache: 'keys', result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(grew('keyplane_cache_lookups_total', { cache: 'keys', result: 'miss' })).toBeGreaterThanOrEqual(3);
    expect(grew('keyplane_cache_invalidations_total', { cache: 'keys' })).toBeGreaterThanOrEqual(1);
    expect(grew('keyplane_invalidations_total', { event: 'sent' })).toBeGreaterThanOrEqual(1);
    expect(grew('keyplane_invalidations_total', { event: 'acknowledged' })).toBeGreaterThanOrEqual(1);
    expect(grew('keyplane_invalidations_total', { event: 'received' })).toBeGreaterThanOrEqual(1);
  });

  it('counts rate-limit decisions, and shows the event buffers, pools, Redis and the process', async () => {
    const before = await scrape();
    const body = { namespace: 'metrics', identifier: 'user_7', limit: 1, duration: 60_000 };
    await api.call('ratelimit.limit', body, setup.workspace.rootKey);
    await api.call('ratelimit.limit', body, setup.workspace.rootKey);
    const after = await scrape();
    const grew = (decision: string) =>
      (sample(after, 'keyplane_ratelimit_decisions_total', { decision }) ?? 0) -
      (sample(before, 'keyplane_ratelimit_decisions_total', { decision }) ?? 0);
    expect([grew('passed'), grew('refused')]).toEqual([1, 1]);
    expect(sample(after, 'keyplane_ratelimit_fallbacks_total')).toBe(0);
    expect(sample(after, 'keyplane_events_buffered', { stream: 'verifications' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'keyplane_events_dropped_total', { stream: 'ratelimits', reason: 'refused' })).toBe(0);
    expect(sample(after, 'keyplane_db_pool_connections', { pool: 'main', state: 'max' })).toBeGreaterThan(0);
    expect(sample(after, 'keyplane_db_pool_connections', { pool: 'credits', state: 'waiting' })).toBe(0);
    expect(sample(after, 'keyplane_redis_connected')).toBe(REDIS_URL === undefined ? undefined : 1);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('never holds a key, an identifier or a name the caller chose in a label', async () => {
    const { key, keyId } = await newKey();
    await api.call('keys.verifyKey', { key }, setup.workspace.rootKey);
    const identifier = 'customer-identifier-7f3a';
    await api.call(
      'ratelimit.limit',
      { namespace: 'ns-chosen-by-caller', identifier, limit: 5, duration: 60_000 },
      setup.workspace.rootKey,
    );
    await api.post('no.suchProcedure9f2c', {}, setup.workspace.rootKey);
    const text = await scrape();
    for (const secret of [
      key,
      keyId,
      identifier,
      'ns-chosen-by-caller',
      'suchProcedure9f2c',
      setup.workspace.rootKey,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(sample(text, 'keyplane_http_requests_total', { route: 'unknown', status: '404' })).toBeGreaterThanOrEqual(1);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('kept from the internet', () => {
  const token = 'scrape-token-0123456789';

  it('METRICS_TOKEN: 401 without the bearer token or with another, 200 with it', async () => {
    // Without Redis, which also leaves keyplane_redis_connected out.
    const server = await startServerProcess({ METRICS_TOKEN: token, REDIS_URL: '' });
    try {
      const without = await fetch(`${server.url}/metrics`);
      expect(without.status).toBe(401);
      expect(without.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await without.json()) as { error: { type: string } }).error.type).toMatch(/metrics_token_required$/);
      const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer another-token-000000' } });
      expect(wrong.status).toBe(401);
      const allowed = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(allowed.status).toBe(200);
      const text = await allowed.text();
      expect(text).toContain('keyplane_http_requests_total');
      expect(text).not.toContain('keyplane_redis_connected');
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('METRICS_PORT: served on that port only, not beside the API', async () => {
    const port = await freePort();
    const server = await startServerProcess({ METRICS_PORT: String(port), METRICS_TOKEN: token });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      const metricsUrl = `http://127.0.0.1:${port}/metrics`;
      expect((await fetch(metricsUrl)).status).toBe(401);
      const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('keyplane_verifications_total');
      expect((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
