import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServerOn } from './appVariants.ts';
import { ERRORS_BASE_URL, useApi } from './harness.ts';

// The dashboard's production build as the server serves it at /dashboard/: a build like Vite's, each
// text file beside its .br and .gz, in a directory of this test's own.
const api = useApi();

const INDEX = '<!doctype html><title>Keyplane</title>';
const SCRIPT = 'console.log("the app");';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyplane-dashboard-'));
  await mkdir(join(dir, 'build', 'assets'), { recursive: true });
  await mkdir(join(dir, 'unbuilt'));
  for (const [path, text] of [
    ['index.html', INDEX],
    ['assets/index-abc123.js', SCRIPT],
  ] as const) {
    await writeFile(join(dir, 'build', path), text);
    await writeFile(join(dir, 'build', `${path}.br`), brotliCompressSync(text));
    await writeFile(join(dir, 'build', `${path}.gz`), gzipSync(text));
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** GET `path` from a server serving a directory of this test's as the dashboard or the portal page. */
const fetchFrom = (
  page: 'dashboardDir' | 'portalDir',
  directory: 'build' | 'unbuilt',
  path: string,
  init: RequestInit = {},
) =>
  withServerOn(api, { [page]: join(dir, directory) }, async (server) => {
    const response = await server.fetch(path, init);
    return { response, text: await response.text() };
  });

/** What a server answers at `path` when the directory it serves the page from holds no build. */
const unbuiltAnswer = async (page: 'dashboardDir' | 'portalDir', path: string) => {
  const { response, text } = await fetchFrom(page, 'unbuilt', path);
  return { status: response.status, body: JSON.parse(text) };
};

const get = (path: string, encoding = 'identity') =>
  fetchFrom('dashboardDir', 'build', path, { headers: { 'accept-encoding': encoding } });

describe('the dashboard', () => {
  it('sends an asset as the build compressed it, cached for good', async () => {
    for (const encoding of ['br', 'gzip']) {
      const { response, text } = await get('/dashboard/assets/index-abc123.js', encoding);
      expect(response.status).toBe(200);
      expect(text).toBe(SCRIPT);
      expect(
        Object.fromEntries(
          ['content-type', 'content-encoding', 'cache-control'].map((name) => [name, response.headers.get(name)]),
        ),
      ).toEqual({
        'content-type': 'text/javascript; charset=utf-8',
        'content-encoding': encoding,
        'cache-control': 'public, max-age=31536000, immutable',
      });
    }
    const plain = await get('/dashboard/assets/index-abc123.js');
    expect([plain.text, plain.response.headers.get('content-encoding')]).toEqual([SCRIPT, null]);
  });

  it('answers every app route with its page, never cached, framed by no one', async () => {
    for (const path of ['/dashboard/', '/dashboard/apis/api_1', '/dashboard/ratelimits/api.requests']) {
      const { response, text } = await get(path, 'br');
      expect([path, response.status, text]).toEqual([path, 200, INDEX]);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('answers a missing asset or top-level file with a 404, and an unbuilt dashboard with a 503', async () => {
    for (const path of ['/dashboard/assets/missing.js', '/dashboard/favicon.svg']) {
      const { response, text } = await get(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(JSON.parse(text).error.type).toBe(`${ERRORS_BASE_URL}/service/routing/route_not_found`);
    }
    expect(await unbuiltAnswer('dashboardDir', '/dashboard/')).toMatchObject({
      status: 503,
      body: { error: { type: `${ERRORS_BASE_URL}/service/application/dashboard_not_built` } },
    });
  });
});

// The customer portal page (docs/portal.md) is served the same way at /portal/, under a stricter policy.
const getPortal = (path: string, encoding = 'identity') =>
  fetchFrom('portalDir', 'build', path, { headers: { 'accept-encoding': encoding }, redirect: 'manual' });

describe('the portal page', () => {
  it('is served with a Content-Security-Policy that allows no inline script or style and nothing from elsewhere but https images', async () => {
    const { response, text } = await getPortal('/portal/?code=pst_x', 'br');
    expect([response.status, text]).toEqual([200, INDEX]);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const policy = Object.fromEntries(
      (response.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(policy).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' https:",
      'connect-src': "'self'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('sends its assets precompressed and cached for good', async () => {
    const { response, text } = await getPortal('/portal/assets/index-abc123.js', 'br');
    expect([response.status, text, response.headers.get('content-encoding')]).toEqual([200, SCRIPT, 'br']);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('redirects /portal to /portal/ keeping the code, and answers an unbuilt page with a 503', async () => {
    const { response } = await getPortal('/portal?code=pst_x');
    expect([response.status, response.headers.get('location')]).toEqual([308, '/portal/?code=pst_x']);
    expect(await unbuiltAnswer('portalDir', '/portal/')).toMatchObject({
      status: 503,
      body: { error: { type: `${ERRORS_BASE_URL}/service/application/portal_not_built` } },
    });
  });
});
