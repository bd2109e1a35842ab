import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { appRouter, type ProcedureMeta } from '@keyplane/procedures';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openApiDescription } from '../src/http/openapi.ts';
import { PUBLIC_PROCEDURES } from '../src/http/procedureTable.ts';
import { assertDescribed, invalidExamples } from './describedAnswers.ts';
import { createTestKey, useApi } from './harness.ts';

// The API's description (docs/contract.md#transport): served, valid OpenAPI 3.1, complete, and
// binding — every /v2 answer of the test suite is checked against it (describedAnswers.ts).
const api = useApi();

type Operation = {
  description?: string;
  security?: unknown[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { required?: string[] } }> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

async function servedDocument(): Promise<Document> {
  const response = await api.fetch('/openapi.json');
  return (await response.json()) as Document;
}

/** GET `path` without authentication, expecting a 200 of this content type. */
async function fetchServed(path: string, contentType: RegExp): Promise<Response> {
  const response = await api.fetch(path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(contentType);
  return response;
}

const procedureMeta = (path: string) =>
  (appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>)[path]?._def.meta;

describe('examples', () => {
  it('are given for the hot procedures, and each is valid against the schema it illustrates', () => {
    const { document } = openApiDescription(appRouter);
    const body = (path: string) =>
      (document.paths as Document['paths'])[path]?.post as unknown as {
        requestBody: { content: Record<string, { schema: { examples?: unknown[] } }> };
      };
    for (const path of ['/v2/keys.verifyKey', '/v2/ratelimit.limit']) {
      expect(body(path).requestBody.content['application/json']?.schema.examples?.length).toBeGreaterThan(0);
    }
    expect(invalidExamples()).toEqual([]);
  });
});

describe('GET /openapi.json', () => {
  it('serves the document as JSON without authentication', async () => {
    const response = await fetchServed('/openapi.json', /^application\/json/);
    expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(await response.json()).toEqual(openApiDescription(appRouter).document);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(await servedDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every public procedure with its statuses and a description', async () => {
    const { paths } = await servedDocument();
    const table = PUBLIC_PROCEDURES;
    expect(table.size).toBeGreaterThan(40);
    for (const [path, { list }] of table) {
      const operation = paths[`/v2/${path}`]?.post;
      expect(operation, path).toBeDefined();
      expect(operation?.description, path).toEqual(expect.any(String));
      const statuses = [200, 400, 401, 403, 413, 415, 429, 500, ...(procedureMeta(path)?.errors ?? [])];
      expect(Object.keys(operation?.responses ?? {}).map(Number), path).toEqual(statuses.sort((a, b) => a - b));
      const success = operation?.responses['200']?.content?.['application/json']?.schema;
      expect(success?.required, path).toEqual(list ? ['meta', 'data', 'pagination'] : ['meta', 'data']);
    }
  });

  it('describes nothing that is not public, and the probes without a root key', async () => {
    const { paths } = await servedDocument();
    const procedurePaths = [...PUBLIC_PROCEDURES.keys()].map((path) => `/v2/${path}`);
    expect(Object.keys(paths).sort()).toEqual([...procedurePaths, '/v2/liveness', '/v2/readiness'].sort());
    expect(paths['/v2/liveness']?.get?.security).toEqual([]);
    expect(Object.keys(paths['/v2/readiness']?.get?.responses ?? {})).toEqual(['200', '503']);
  });
});

describe('GET /openapi.yaml', () => {
  it('serves the same document as YAML', async () => {
    const response = await fetchServed('/openapi.yaml', /^application\/yaml/);
    const text = await response.text();
    // Plain YAML: no anchors or aliases for the parts the document repeats.
    expect(text).not.toMatch(/[&*]a\d+\b/);
    expect(parse(text)).toEqual(await servedDocument());
  });
});

describe('GET /docs', () => {
  it('serves a page that loads the reference from this server, not from a CDN', async () => {
    const response = await fetchServed('/docs', /^text\/html/);
    const html = await response.text();
    expect(html).toContain('<script src="/docs/scalar.js"></script>');
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).not.toMatch(/src="https?:/);
  });

  it('serves the Scalar bundle with caching headers, revalidated by its ETag', async () => {
    const bundle = await readFile(
      join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser', 'standalone.js'),
    );
    const response = await fetchServed('/docs/scalar.js', /^text\/javascript/);
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    // fetch asks for gzip and undoes it: the bytes are the package's.
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await response.arrayBuffer()).equals(bundle)).toBe(true);
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);

    const revalidated = await api.fetch('/docs/scalar.js', { headers: { 'if-none-match': etag as string } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
  });
});

const JSON_TYPE = 'application/json';

describe('answers checked against the document', () => {
  it('accepts a real answer and names what differs in one that drifts', async () => {
    const { rootKey } = await api.workspace();
    const apiId = (await api.call('apis.createApi', { name: 'described' }, rootKey)).body.data.apiId;
    const { keyId } = await createTestKey(api, rootKey, { apiId });
    const reply = await api.call('keys.getKey', { keyId }, rootKey);
    expect(reply.status).toBe(200);
    expect(() =>
      assertDescribed('/v2/keys.getKey', 'POST', { status: 200, contentType: JSON_TYPE, body: reply.body }),
    ).not.toThrow();

    const { keyId: _dropped, ...drifted } = reply.body.data;
    expect(() =>
      assertDescribed('/v2/keys.getKey', 'POST', {
        status: 200,
        contentType: JSON_TYPE,
        body: { ...reply.body, data: drifted },
      }),
    ).toThrow(/200 answer of POST \/v2\/keys\.getKey differs .*keyId/);
    expect(() =>
      assertDescribed('/v2/keys.getKey', 'POST', {
        status: 200,
        contentType: JSON_TYPE,
        body: { ...reply.body, data: { ...reply.body.data, secret: 'x' } },
      }),
    ).toThrow(/additional properties/);
  });

  it('refuses a status the document does not list for the procedure', () => {
    expect(() =>
      assertDescribed('/v2/keys.verifyKey', 'POST', { status: 404, contentType: JSON_TYPE, body: {} }),
    ).toThrow(/lists no 404 for POST \/v2\/keys\.verifyKey/);
  });

  it('refuses a media type the document does not give for the status', () => {
    // 429s are always problem documents (mediaTypeOf); successes never are.
    expect(() =>
      assertDescribed('/v2/keys.verifyKey', 'POST', { status: 429, contentType: JSON_TYPE, body: {} }),
    ).toThrow(/no application\/json answer for 429/);
    expect(() =>
      assertDescribed('/v2/keys.verifyKey', 'POST', { status: 200, contentType: 'application/problem+json', body: {} }),
    ).toThrow(/no application\/problem\+json answer for 200/);
  });

  it('checks answers of paths and methods the document does not list against the error envelope', async () => {
    const reply = await api.request('/v2/keys.getKey', { method: 'GET' });
    expect(reply.status).toBe(405);
    expect(() =>
      assertDescribed('/v2/keys.getKey', 'GET', {
        status: 405,
        contentType: JSON_TYPE,
        body: { ...reply.body, error: { status: 405 } },
      }),
    ).toThrow(/405 answer of GET \/v2\/keys\.getKey differs/);
  });
});
