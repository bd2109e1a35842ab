import { performance } from 'node:perf_hooks';
import type { HttpBindings } from '@hono/node-server';
import { newId } from '@keyplane/core';
import { lazyFork, type Orm } from '@keyplane/db';
import { type AppRouter, appRouter, type Context, createContextInner, type Services } from '@keyplane/procedures';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from '../log.ts';
import { BodyTooLargeError, readBody } from './body.ts';
import { dispatch, publicProcedureTable } from './contract.ts';
import { type Problem, problemBody, problems } from './problem.ts';

export interface AppDeps {
  orm: Orm;
  logger: Logger;
  errorsBaseUrl: string;
  maxBodyBytes: number;
  vaultMasterKey: Uint8Array | undefined;
  services: Services;
  /** One info line per request (failures are always logged). */
  logRequests?: boolean;
  router?: AppRouter;
}

type Env = {
  Bindings: Partial<HttpBindings>;
  Variables: { requestId: string; procedure?: string; failure?: unknown };
};

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** The HTTP host: `/v2` (the public contract), `/trpc` (internal typed callers) and liveness. */
export function createApp(deps: AppDeps) {
  const router = deps.router ?? appRouter;
  const table = publicProcedureTable(router);
  const app = new Hono<Env>();

  const contextFor = (requestId: string, authorization: string | undefined): Context =>
    createContextInner({
      em: lazyFork(deps.orm),
      requestId,
      authorization,
      vaultMasterKey: deps.vaultMasterKey,
      services: deps.services,
    });

  const respondWith = (c: { json: (body: unknown, status: never) => Response }, requestId: string, problem: Problem) =>
    c.json(problemBody(problem, requestId, deps.errorsBaseUrl), problem.status as never);

  app.use('*', async (c, next) => {
    const requestId = newId('request');
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    const failure = c.get('failure');
    const fields = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      procedure: c.get('procedure'),
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
    if (failure) {
      deps.logger.error('request failed', {
        ...fields,
        error: failure instanceof Error ? failure.stack : String(failure),
      });
    } else if (deps.logRequests !== false) {
      deps.logger.info('request', fields);
    }
  });

  const limitBody = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) => respondWith(c, c.get('requestId'), problems.bodyTooLarge(deps.maxBodyBytes)),
  });

  app.get('/v2/liveness', (c) => c.json({ meta: { requestId: c.get('requestId') }, data: { message: 'OK' } }));

  app.post('/v2/:rpc', async (c) => {
    const requestId = c.get('requestId');
    const path = c.req.param('rpc');
    c.set('procedure', path);
    if (!table.has(path)) return respondWith(c, requestId, problems.unknownProcedure(path));
    const contentType = c.req.header('content-type');
    if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
      return respondWith(c, requestId, problems.unsupportedMediaType(contentType));
    }
    let text: string;
    try {
      text = await readBody(c, deps.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return respondWith(c, requestId, problems.bodyTooLarge(deps.maxBodyBytes));
      throw error;
    }
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      return respondWith(c, requestId, problems.malformedJson(error instanceof Error ? error.message : 'unreadable'));
    }
    // Arrays pass on to the procedure's schema (a batch procedure may take one); scalars never do.
    if (typeof input !== 'object' || input === null) return respondWith(c, requestId, problems.notAnObject());

    const result = await dispatch({
      router,
      table,
      path,
      input,
      ctx: contextFor(requestId, c.req.header('authorization')),
      signal: c.req.raw.signal,
    });
    if (result.ok) return c.json({ meta: { requestId }, data: result.data });
    if (result.problem.status >= 500) c.set('failure', result.cause);
    return respondWith(c, requestId, result.problem);
  });

  app.all('/v2/:rpc', (c) => {
    c.header('Allow', 'POST');
    return respondWith(c, c.get('requestId'), problems.methodNotAllowed(c.req.method));
  });

  app.all('/trpc/*', limitBody, (c) =>
    fetchRequestHandler({
      endpoint: '/trpc',
      req: c.req.raw,
      router,
      allowMethodOverride: true,
      createContext: () => contextFor(c.get('requestId'), c.req.header('authorization')),
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') c.set('failure', error.cause ?? error);
      },
    }),
  );

  app.notFound((c) => respondWith(c, c.get('requestId'), problems.routeNotFound(c.req.path)));
  app.onError((error, c) => {
    c.set('failure', error);
    return respondWith(c, c.get('requestId') ?? newId('request'), problems.unexpected());
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
