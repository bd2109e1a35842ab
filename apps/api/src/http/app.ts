import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { newId } from '@keyplane/core';
import { lazyFork, type Orm } from '@keyplane/db';
import { type AppRouter, appRouter, type Context, createContextInner, type Services } from '@keyplane/procedures';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from '../log.ts';
import { readIncomingBody, readWebBody } from './body.ts';
import { createDashboardAssets } from './dashboardStatic.ts';
import { type Problem, problemBody, problems } from './problem.ts';
import { workspaceRateLimitHeaders } from './rateLimitHeaders.ts';
import { logRequest } from './requestLog.ts';
import { cookieSessionCarrier, crossSiteRefusal } from './sessionCookie.ts';
import { type CallerHeaders, createV2Handler, metricsDisabledBy, type V2Answer } from './v2.ts';

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
  /** The dashboard's production build, served at /dashboard; omitted: no dashboard. */
  dashboardDir?: string;
}

type Env = {
  Bindings: Partial<HttpBindings>;
  Variables: { requestId: string; procedure?: string; failure?: unknown };
};

/** The reference's header for opting one call out of analytics. */
const METRICS_HEADER = 'x-unkey-metrics';

/** A `/v2` procedure call waiting for the end of the event loop's turn in which it arrived. */
interface ArrivedCall {
  request: IncomingMessage;
  response: ServerResponse;
  procedure: string;
  started: number;
}

const V2_PROCEDURE_PATH = /^\/v2\/([^/?#]+)(?:\?.*)?$/;

/**
 * The HTTP host: `/v2` (the public contract), `/trpc` (internal typed callers) and liveness.
 * `app` serves everything (and is what in-process tests call); `listener` is what the Node server
 * runs: it answers `/v2` procedure calls straight on Node's request and response, which spares the
 * hot path the web Request/Response conversion, and hands everything else to `app`. `handleV2` is
 * the `/v2` pipeline without any transport (for measuring it alone).
 */
export function createHttp(deps: AppDeps) {
  const router = deps.router ?? appRouter;
  const logRequests = deps.logRequests !== false;
  const contextFor = (requestId: string, caller: CallerHeaders): Context =>
    createContextInner({
      em: lazyFork(deps.orm),
      requestId,
      authorization: caller.authorization,
      vaultMasterKey: deps.vaultMasterKey,
      services: deps.services,
      session: caller.session,
      metricsDisabled: caller.metricsDisabled,
      onWorkspaceRateLimit: caller.onWorkspaceRateLimit,
    });
  const handleV2 = createV2Handler({
    router,
    maxBodyBytes: deps.maxBodyBytes,
    errorsBaseUrl: deps.errorsBaseUrl,
    contextFor,
  });
  const unexpected = (requestId: string, failure: unknown): V2Answer => ({
    status: 500,
    body: problemBody(problems.unexpected(), requestId, deps.errorsBaseUrl),
    failure,
  });

  const app = new Hono<Env>();
  const respondWith = (c: { json: (body: unknown, status: never) => Response }, requestId: string, problem: Problem) =>
    c.json(problemBody(problem, requestId, deps.errorsBaseUrl), problem.status as never);

  app.use('*', async (c, next) => {
    const requestId = newId('request');
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    logRequest(deps.logger, logRequests, {
      requestId,
      method: c.req.method,
      path: c.req.path,
      procedure: c.get('procedure'),
      status: c.res.status,
      durationMs: performance.now() - started,
      failure: c.get('failure'),
    });
  });

  app.get('/v2/liveness', (c) => c.json({ meta: { requestId: c.get('requestId') }, data: { message: 'OK' } }));

  app.all('/v2/:rpc', async (c) => {
    const procedure = c.req.param('rpc');
    c.set('procedure', procedure);
    const incoming = c.env?.incoming;
    const answer = await handleV2(
      {
        method: c.req.method,
        procedure,
        contentType: c.req.header('content-type'),
        authorization: c.req.header('authorization'),
        metricsDisabled: metricsDisabledBy(c.req.header(METRICS_HEADER)),
        readBody: (limit) => (incoming ? readIncomingBody(incoming, limit) : readWebBody(c.req.raw, limit)),
        signal: c.req.raw.signal,
      },
      c.get('requestId'),
    );
    if (answer.failure !== undefined) c.set('failure', answer.failure);
    for (const [name, value] of Object.entries(answer.headers ?? {})) c.header(name, value);
    return c.json(answer.body, answer.status as never);
  });

  const limitBody = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) => respondWith(c, c.get('requestId'), problems.bodyTooLarge(deps.maxBodyBytes)),
  });
  app.all('/trpc/*', limitBody, (c) => {
    const authorization = c.req.header('authorization');
    // Without an Authorization header the caller can only be the dashboard, by its session cookie.
    const refusal = authorization === undefined ? crossSiteRefusal(c.req.raw) : undefined;
    if (refusal !== undefined) return respondWith(c, c.get('requestId'), problems.crossSiteRequest(refusal));
    return fetchRequestHandler({
      endpoint: '/trpc',
      req: c.req.raw,
      router,
      allowMethodOverride: true,
      createContext: ({ resHeaders }) =>
        contextFor(c.get('requestId'), {
          authorization,
          metricsDisabled: metricsDisabledBy(c.req.header(METRICS_HEADER)),
          session: authorization === undefined ? cookieSessionCarrier(c.req.raw, resHeaders) : undefined,
          onWorkspaceRateLimit: (state) => {
            for (const [name, value] of Object.entries(workspaceRateLimitHeaders(state))) resHeaders.set(name, value);
          },
        }),
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') c.set('failure', error.cause ?? error);
      },
    });
  });

  if (deps.dashboardDir !== undefined) {
    const dashboardAsset = createDashboardAssets(deps.dashboardDir);
    app.get('/dashboard', (c) => c.redirect('/dashboard/', 308));
    app.get('/dashboard/*', async (c) => {
      const asset = await dashboardAsset(c.req.path.slice('/dashboard/'.length));
      if (asset.status === 200) return c.body(new Uint8Array(asset.body), 200, asset.headers);
      const problem = asset.status === 503 ? problems.dashboardNotBuilt() : problems.routeNotFound(c.req.path);
      return respondWith(c, c.get('requestId'), problem);
    });
  }

  app.notFound((c) => respondWith(c, c.get('requestId'), problems.routeNotFound(c.req.path)));
  app.onError((error, c) => {
    c.set('failure', error);
    return respondWith(c, c.get('requestId') ?? newId('request'), problems.unexpected());
  });

  const honoListener = getRequestListener(app.fetch);

  // The /v2 calls that arrive in one turn of the event loop are answered together, once that turn's
  // I/O is read: their pipelines then run interleaved, a stage for every call in a row, so the
  // pipeline's code and data stay in the CPU caches. Answered one by one, the HTTP parsing of each
  // next request evicts them, and a verification costs nearly twice the CPU (npm run bench).
  let arrived: ArrivedCall[] = [];
  const answerArrived = () => {
    const batch = arrived;
    arrived = [];
    for (const call of batch) void answerV2(call);
  };

  async function listener(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const procedure = V2_PROCEDURE_PATH.exec(request.url ?? '')?.[1];
    if (procedure === undefined || procedure === 'liveness') {
      await honoListener(request, response);
      return;
    }
    if (arrived.push({ request, response, procedure, started: performance.now() }) === 1) setImmediate(answerArrived);
  }

  async function answerV2({ request, response, procedure, started }: ArrivedCall): Promise<void> {
    const requestId = newId('request');
    let answer: V2Answer;
    try {
      answer = await handleV2(
        {
          method: request.method ?? 'GET',
          procedure,
          contentType: request.headers['content-type'],
          authorization: request.headers.authorization,
          metricsDisabled: metricsDisabledBy(request.headers[METRICS_HEADER] as string | undefined),
          readBody: (limit) => readIncomingBody(request, limit),
        },
        requestId,
      );
    } catch (error) {
      answer = unexpected(requestId, error);
    }
    const payload = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...answer.headers,
    });
    response.end(payload);
    logRequest(deps.logger, logRequests, {
      requestId,
      method: request.method ?? 'GET',
      path: request.url ?? '',
      procedure,
      status: answer.status,
      durationMs: performance.now() - started,
      failure: answer.failure,
    });
  }

  return { app, listener, handleV2 };
}

/** The Hono app alone, for in-process calls (`app.request`). */
export function createApp(deps: AppDeps) {
  return createHttp(deps).app;
}

export type App = ReturnType<typeof createApp>;
