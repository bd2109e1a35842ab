import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { TrustProxy } from '@keyplane/config';
import { newId } from '@keyplane/core';
import { lazyFork, type Orm } from '@keyplane/db';
import {
  type AppRouter,
  appRouter,
  type Context,
  createContextInner,
  oneAtATime,
  type Services,
} from '@keyplane/procedures';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from '../log.ts';
import type { NodeMetrics } from '../metrics.ts';
import type { Readiness } from '../readiness.ts';
import { API_REFERENCE_PAGE, scalarBundleResponse } from './apiReference.ts';
import { clientAddressReader } from './clientAddress.ts';
import { createDashboardAssets } from './dashboardStatic.ts';
import { exposition, type MetricsAccess, scrapeAllowed } from './metricsEndpoint.ts';
import { openApiDescription } from './openapi.ts';
import { CLIENT_CLOSED_REQUEST, type Problem, problemBody, problems } from './problem.ts';
import { workspaceRateLimitHeaders } from './rateLimitHeaders.ts';
import { REQUEST_ID_HEADER, requestIdFor, TRACEPARENT_HEADER, traceIdFrom } from './requestId.ts';
import { requestRecorder } from './requestLog.ts';
import { cookieSessionCarrier, crossSiteRefusal } from './sessionCookie.ts';
import { type CallerHeaders, createV2Handler, metricsDisabledBy } from './v2.ts';
import { createV2Transport } from './v2Transport.ts';

export interface AppDeps {
  orm: Orm;
  logger: Logger;
  errorsBaseUrl: string;
  maxBodyBytes: number;
  /** The most calls one `/trpc` batch may hold (docs/contract.md#limits); omitted: DEFAULT_TRPC_BATCH_SIZE. */
  maxBatchSize?: number;
  vaultMasterKey: Uint8Array | undefined;
  services: Services;
  /** Answers `GET /v2/readiness`. */
  readiness: Readiness;
  /** One info line per request (failures are always logged). */
  logRequests?: boolean;
  router?: AppRouter;
  /** The dashboard's production build, served at /dashboard; omitted: no dashboard. */
  dashboardDir?: string;
  /** Which reverse proxies' X-Forwarded-For entries say the client's address (TRUST_PROXY); omitted: none. */
  trustProxy?: TrustProxy;
  /** Counts every request; omitted: nothing is counted (tests of other things). */
  metrics?: NodeMetrics;
  /** Serves `GET /metrics` on this listener; omitted: not here (METRICS_PORT serves it, or nothing does). */
  metricsAccess?: MetricsAccess;
}

type Env = {
  Bindings: Partial<HttpBindings>;
  Variables: { requestId: string; failure?: unknown };
};

/** Calls in one `/trpc` batch unless configured (LIMIT_TRPC_BATCH_SIZE): what the dashboard and the client send at most. */
export const DEFAULT_TRPC_BATCH_SIZE = 10;

/** The reference's header for opting one call out of analytics. */
const METRICS_HEADER = 'x-unkey-metrics';

/**
 * The HTTP host. `listener` is what the Node server runs: `/v2` (the public contract, liveness
 * included) goes through its one transport (v2Transport.ts); `/trpc` (internal typed callers) and
 * the dashboard through a small Hono app. `handleV2` is the `/v2` pipeline without any transport
 * (for measuring it alone).
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
      clientAddress: caller.clientAddress,
      metricsDisabled: caller.metricsDisabled,
      onWorkspaceRateLimit: caller.onWorkspaceRateLimit,
    });
  const handleV2 = createV2Handler({
    router,
    maxBodyBytes: deps.maxBodyBytes,
    errorsBaseUrl: deps.errorsBaseUrl,
    contextFor,
  });
  const clientAddressOf = clientAddressReader(deps.trustProxy ?? false);
  const recordRequest = requestRecorder({ logger: deps.logger, logRequests, metrics: deps.metrics });
  const v2 = createV2Transport({
    handleV2,
    readiness: deps.readiness,
    recordRequest,
    errorsBaseUrl: deps.errorsBaseUrl,
  });

  const app = new Hono<Env>();
  const respondWith = (c: { json: (body: unknown, status: never) => Response }, requestId: string, problem: Problem) =>
    c.json(problemBody(problem, requestId, deps.errorsBaseUrl), problem.status as never);

  app.use('*', async (c, next) => {
    const requestId = requestIdFor(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
    recordRequest({
      requestId,
      method: c.req.method,
      path: c.req.path,
      procedure: undefined,
      status: c.env?.incoming?.socket.destroyed ? CLIENT_CLOSED_REQUEST : c.res.status,
      durationMs: performance.now() - started,
      traceId: traceIdFrom(c.req.header(TRACEPARENT_HEADER)),
      failure: c.get('failure'),
    });
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
      // Each call of a batch runs at once, side by side: a bound on them is a bound on what one
      // request can make the node do (docs/contract.md#limits). Larger batches are a 400.
      maxBatchSize: deps.maxBatchSize ?? DEFAULT_TRPC_BATCH_SIZE,
      createContext: ({ resHeaders }) => ({
        ...contextFor(c.get('requestId'), {
          authorization,
          clientAddress: clientAddressOf(c.env?.incoming),
          metricsDisabled: metricsDisabledBy(c.req.header(METRICS_HEADER)),
          session: authorization === undefined ? cookieSessionCarrier(c.req.raw, resHeaders) : undefined,
          onWorkspaceRateLimit: (state) => {
            for (const [name, value] of Object.entries(workspaceRateLimitHeaders(state))) resHeaders.set(name, value);
          },
        }),
        // The calls of one batch run one after the other: a batch costs what its calls cost in turn.
        inTurn: oneAtATime(),
      }),
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') c.set('failure', error.cause ?? error);
      },
    });
  });

  const { metrics, metricsAccess } = deps;
  if (metrics !== undefined && metricsAccess !== undefined) {
    app.get('/metrics', async (c) => {
      if (!scrapeAllowed(metricsAccess, c.req.header('authorization'))) {
        c.header('WWW-Authenticate', 'Bearer');
        return respondWith(c, c.get('requestId'), problems.metricsTokenRequired());
      }
      const { contentType, body } = await exposition(metrics);
      return c.body(body, 200, { 'content-type': contentType });
    });
  }

  // The API's description and its reference page: public, like the contract they describe.
  const description = openApiDescription(router);
  app.get('/openapi.json', (c) => c.body(description.json, 200, { 'content-type': 'application/json' }));
  app.get('/openapi.yaml', (c) => c.body(description.yaml, 200, { 'content-type': 'application/yaml' }));
  app.get('/docs', (c) => c.html(API_REFERENCE_PAGE));
  app.get('/docs/scalar.js', (c) => scalarBundleResponse(c.req.raw));

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

  const { readiness } = deps;
  async function listener(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A stopping node closes each connection after its answer, so that no client sends another
    // request on one it is about to close (docs/operations.md#rolling-restarts).
    if (readiness.isStopping()) response.setHeader('connection', 'close');
    if (!v2.accept(request, response)) await honoListener(request, response);
  }

  return { listener, handleV2 };
}

/** The Node HTTP server that runs the listener: what `npm start` listens with, and what tests drive over a socket. */
export function createHttpServer(deps: AppDeps): Server {
  const { listener } = createHttp(deps);
  return createServer((request, response) => void listener(request, response));
}
