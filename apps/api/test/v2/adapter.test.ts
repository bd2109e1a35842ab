import { createTestDatabase } from '@keyplane/db/testing';
import { describe, expect, inject, it } from 'vitest';
import { withServerOn } from '../appVariants.ts';
import { ERRORS_BASE_URL, MAX_BODY_BYTES, useApi } from '../harness.ts';

const api = useApi();

describe('success envelope', () => {
  it('wraps data with meta.requestId', async () => {
    const { rootKey } = await api.workspace();
    const reply = await api.post('apis.createApi', { name: 'envelope' }, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.meta.requestId).toMatch(/^req_[A-Za-z0-9]+$/);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'meta']);
  });

  it('gives every request its own requestId', async () => {
    const first = await api.request('/v2/liveness', { method: 'GET' });
    const second = await api.request('/v2/liveness', { method: 'GET' });
    expect(first.body.meta.requestId).not.toBe(second.body.meta.requestId);
  });

  it('answers liveness without authentication', async () => {
    const reply = await api.request('/v2/liveness', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ message: 'OK' });
  });

  it('answers liveness read by another method with 405 and Allow: GET', async () => {
    const reply = await api.request('/v2/liveness', { method: 'POST', body: '{}' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET');
    expect(reply.body.error.detail).toBe('This endpoint is read with GET, not POST.');
  });
});

describe('request ids', () => {
  const createApi = async (headers: Record<string, string>) => {
    const { rootKey } = await api.workspace();
    return api.fetch('/v2/apis.createApi', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}`, ...headers },
      body: JSON.stringify({ name: 'request-ids' }),
    });
  };

  it('come back in the X-Request-Id header, the same as meta.requestId', async () => {
    const response = await createApi({});
    const body = (await response.json()) as { meta: { requestId: string } };
    expect(response.headers.get('x-request-id')).toBe(body.meta.requestId);
  });

  it("are the caller's own X-Request-Id when it sends a usable one", async () => {
    const response = await createApi({ 'X-Request-Id': 'checkout-7f3a:2' });
    const body = (await response.json()) as { meta: { requestId: string } };
    expect(body.meta.requestId).toBe('checkout-7f3a:2');
    expect(response.headers.get('x-request-id')).toBe('checkout-7f3a:2');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with a space', 'two words'],
    ['with a quote', 'a"b'],
  ])("are ours when the caller's is %s", async (_, callerId) => {
    const response = await createApi({ 'X-Request-Id': callerId });
    const body = (await response.json()) as { meta: { requestId: string } };
    expect(body.meta.requestId).toMatch(/^req_[A-Za-z0-9]+$/);
    expect(response.headers.get('x-request-id')).toBe(body.meta.requestId);
  });

  it("log the caller's trace id from a well-formed traceparent, and nothing from another", async () => {
    const logged: Record<string, unknown>[] = [];
    const logger = {
      info: () => {},
      error: () => {},
      request: (fields: object) => logged.push({ ...fields }),
    };
    const traceparents = [
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      'not a trace',
    ];
    await withServerOn(api, { logger }, async (server) => {
      for (const traceparent of traceparents) await server.fetch('/v2/liveness', { headers: { traceparent } });
      await server.fetch('/trpc/apis.listApis', { headers: { traceparent: traceparents[0] as string } });
    });
    expect(logged.map(({ traceId }) => traceId)).toEqual([
      '4bf92f3577b34da6a3ce929d0e0e4736',
      undefined,
      undefined,
      '4bf92f3577b34da6a3ce929d0e0e4736',
    ]);
  });

  it('are echoed at /trpc and on routes that do not exist too', async () => {
    for (const path of ['/trpc/apis.listApis', '/nothing-here']) {
      const response = await api.fetch(path, { headers: { 'X-Request-Id': 'trace-1' } });
      expect(response.headers.get('x-request-id')).toBe('trace-1');
    }
  });
});

describe('400', () => {
  const raw = (body: string, contentType = 'application/json') =>
    api.request('/v2/apis.createApi', { method: 'POST', headers: { 'Content-Type': contentType }, body });

  it('rejects malformed JSON before anything else runs', async () => {
    const reply = await raw('{"name": ');
    expect(reply.status).toBe(400);
    expect(reply.body.error.detail).toMatch(/not valid JSON/);
    expect(reply.body.error.errors).toEqual([expect.objectContaining({ location: 'body' })]);
  });

  it.each(['42', '"text"', 'null', 'true'])('rejects a body that is not an object: %s', async (body) => {
    const reply = await raw(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.detail).toBe('The request body must be a JSON object.');
  });

  it('rejects unknown fields, naming them', async () => {
    const { rootKey } = await api.workspace();
    const reply = await api.post('apis.createApi', { name: 'ok-name', color: 'red' }, rootKey);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toContainEqual(expect.objectContaining({ location: 'body.color' }));
  });

  it('has the problem shape with the configured errors base', async () => {
    const { rootKey } = await api.workspace();
    const reply = await api.post('apis.createApi', { name: 1 }, rootKey);
    expect(reply.body.error).toEqual({
      title: 'Bad Request',
      status: 400,
      detail: expect.stringContaining('body.name'),
      type: `${ERRORS_BASE_URL}/service/application/invalid_input`,
      errors: [expect.objectContaining({ location: 'body.name', message: expect.any(String) })],
    });
    expect(reply.headers.get('content-type')).toBe('application/json');
  });

  it('comes as application/problem+json when the caller accepts it, as the reference answers', async () => {
    const { rootKey } = await api.workspace();
    const createApi = (accept: string, body: unknown) =>
      api.request('/v2/apis.createApi', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${rootKey}` },
        body: JSON.stringify(body),
      });
    const reply = await createApi('application/problem+json, application/json', { name: 1 });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toBe('application/problem+json');
    expect(reply.body.error.status).toBe(400);
    // A success stays application/json whatever the caller accepts.
    const created = await createApi('application/problem+json', { name: 'accepted' });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/json');
  });
});

describe('404', () => {
  it('answers an unknown procedure', async () => {
    const reply = await api.post('keys.noSuchThing', {});
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toContain("'keys.noSuchThing'");
  });

  it('does not expose procedures that are not marked public', async () => {
    const { rootKey } = await api.workspace();
    const reply = await api.post('rootKeys.listRootKeys', {}, rootKey);
    expect(reply.status).toBe(404);
  });

  it('answers an unknown route with the error envelope', async () => {
    const reply = await api.request('/nothing/here', { method: 'GET' });
    expect(reply.status).toBe(404);
    expect(reply.body.error.status).toBe(404);
  });
});

describe('405', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('answers %s on a procedure path', async (method) => {
    const reply = await api.request('/v2/keys.createKey', { method });
    expect(reply.status).toBe(405);
    expect(reply.body.error.title).toBe('Method Not Allowed');
  });
});

describe('413', () => {
  it('rejects a body over the limit', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES + 1) });
    const reply = await api.request('/v2/apis.createApi', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(reply.status).toBe(413);
    expect(reply.body.error.title).toBe('Request Entity Too Large');
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/user/bad_request/request_body_too_large`);
  });
});

describe('415', () => {
  it('rejects a body that is not declared as JSON', async () => {
    const reply = await api.request('/v2/apis.createApi', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(reply.status).toBe(415);
  });
});

describe('500', () => {
  it('never leaks internals', async () => {
    const { rootKey } = await api.workspace();
    // An app whose database is gone: every query fails inside the driver.
    const broken = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    await broken.drop();
    const response = await withServerOn(api, { orm: broken.orm }, (server) =>
      server.fetch('/v2/apis.createApi', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
        body: JSON.stringify({ name: 'broken' }),
      }),
    );
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text).error.detail).toBe(
      'An unexpected error occurred. Please contact support and quote the requestId.',
    );
    expect(text).not.toMatch(/select|insert|root_keys|\.ts:|node_modules/i);
  });
});

describe('request log', () => {
  it('writes one line per request with requestId, procedure, status and duration, and no key material, not even from the query string', async () => {
    const { rootKey } = await api.workspace();
    const lines: string[] = [];
    const logger = {
      info: (message: string, fields?: object) => lines.push(JSON.stringify({ message, ...fields })),
      error: (message: string, fields?: object) => lines.push(JSON.stringify({ message, ...fields })),
      request: (fields: object) => lines.push(JSON.stringify({ message: 'request', ...fields })),
    };
    const { created } = await withServerOn(api, { logger }, async (server) => {
      const api = await server.call('apis.createApi', { name: 'logged' }, rootKey);
      const key = await server.call('keys.createKey', { apiId: api.body.data.apiId }, rootKey);
      const { key: plaintext } = key.body.data;
      const verified = await server.post(`keys.verifyKey?key=${plaintext}`, { key: plaintext }, rootKey);
      expect(verified.status).toBe(200);
      return { created: key.body };
    });
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2] as string)).toMatchObject({ path: '/v2/keys.verifyKey', procedure: 'keys.verifyKey' });
    const entry = JSON.parse(lines[1] as string);
    expect(entry).toMatchObject({
      requestId: created.meta.requestId,
      procedure: 'keys.createKey',
      status: 200,
      durationMs: expect.any(Number),
    });
    const log = lines.join('\n');
    expect(log).not.toContain(rootKey);
    expect(log).not.toContain(created.data.key);
  });
});
