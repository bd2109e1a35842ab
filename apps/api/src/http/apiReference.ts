import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/**
 * The interactive reference at `/docs`: Scalar's standalone bundle, served by this server (no CDN,
 * so it works offline), reading `/openapi.json`. Scalar's own web fonts and telemetry are off for
 * the same reason.
 */
const SCALAR_CONFIGURATION = JSON.stringify({
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
});

export const API_REFERENCE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Keyplane API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json" data-configuration='${SCALAR_CONFIGURATION}'></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>
`;

// The package exports no path to its browser bundle, so it is found beside its entry point.
const SCALAR_BUNDLE = join(
  dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')),
  'browser',
  'standalone.js',
);

interface Bundle {
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

let loading: Promise<Bundle> | undefined;

/** Read and compressed on the first request (4 MB, 1 MB gzipped), then kept. */
function loadBundle(): Promise<Bundle> {
  loading ??= (async () => {
    const body = await readFile(SCALAR_BUNDLE);
    const gzipped = await promisify(gzip)(body);
    return { body, gzipped, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  })();
  return loading;
}

/** `/docs/scalar.js`: cached by browsers for a day, then revalidated by its ETag. */
export async function scalarBundleResponse(request: Request): Promise<Response> {
  const { body, gzipped, etag } = await loadBundle();
  const headers: Record<string, string> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=86400',
    etag,
    vary: 'accept-encoding',
  };
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  const acceptsGzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  return new Response(new Uint8Array(acceptsGzip ? gzipped : body), {
    status: 200,
    headers: acceptsGzip ? { ...headers, 'content-encoding': 'gzip' } : headers,
  });
}
