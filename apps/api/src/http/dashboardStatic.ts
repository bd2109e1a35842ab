import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The dashboard talks only to its own origin and is never framed (clickjacking). */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export type DashboardAsset = { status: 200; body: Buffer; headers: Record<string, string> } | { status: 404 | 503 };

/**
 * The production build in `root`, a single-page app: a path naming a file serves it, a missing
 * asset is a 404, any other path serves index.html (the app routes in the browser). Vite names assets by content hash, so
 * those are cached for good and index.html never is.
 */
export function createDashboardAssets(root: string) {
  const rootPrefix = normalize(root) + sep;
  const fileAt = async (relative: string): Promise<Buffer | undefined> => {
    const path = normalize(join(root, relative));
    if (!path.startsWith(rootPrefix)) return undefined;
    const found = await stat(path).catch(() => undefined);
    return found?.isFile() ? readFile(path) : undefined;
  };
  return async function dashboardAsset(relativePath: string): Promise<DashboardAsset> {
    let relative: string;
    try {
      relative = decodeURIComponent(relativePath);
    } catch {
      return { status: 404 };
    }
    const file = relative === '' ? undefined : await fileAt(relative);
    if (file) {
      const immutable = relative.startsWith('assets/');
      return {
        status: 200,
        body: file,
        headers: {
          ...SECURITY_HEADERS,
          'content-type': CONTENT_TYPES[extname(relative)] ?? 'application/octet-stream',
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        },
      };
    }
    // A missing asset (under assets/, or a top-level file such as favicon.svg) is stale or mistyped.
    // Deeper paths are app routes, whose names may hold dots (/ratelimits/api.requests).
    if (relative.startsWith('assets/') || (!relative.includes('/') && extname(relative) !== '')) {
      return { status: 404 };
    }
    const index = await fileAt('index.html');
    if (!index) return { status: 503 };
    return {
      status: 200,
      body: index,
      headers: { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES['.html'] as string, 'cache-control': 'no-cache' },
    };
  };
}
