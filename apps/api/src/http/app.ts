import { createServer, type IncomingMessage, type Server } from 'node:http';
import { extname, join, sep } from 'node:path';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import type { TrustProxy } from '@keyplane/config';
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
import { Hono, type Context as HonoContext } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { Logger } from '../log.ts';
import type { NodeMetrics } from '../metrics.ts';
import type { Readiness } from '../readiness.ts';
import { API_REFERENCE_PAGE, scalarBundleResponse } from './apiReference.ts';
import { clientAddressReader } from './clientAddress.ts';
import { exposition, type MetricsAccess, scrapeAllowed } from './metricsEndpoint.ts';
import { openApiDescription } from './openapi.ts';
import { type Problem, problemBody, problems } from './problem.ts';
import { workspaceRateLimitHeaders } from './rateLimitHeaders.ts';
import { type Exchange, requestListener } from './requests.ts';
import { cookieSessionCarrier, crossSiteRefusal, portalCookieCarrier, requestOriginOf } from './sessionCookie.ts';
import { type SsoConfig, ssoRoutes } from './sso.ts';
import { type CallerHeaders, createV2Handler, METRICS_HEADER, metricsDisabledBy, v2Route } from './v2.ts';

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
  /** The customer portal page's production build, served at /portal (docs/portal.md); omitted: no portal page. */
  portalDir?: string;
  /** Which reverse proxies' X-Forwarded-For entries say the client's address (TRUST_PROXY); omitted: none. */
  trustProxy?: TrustProxy;
  /** Counts every request; omitted: nothing is counted (tests of other things). */
  metrics?: NodeMetrics;
  /** Serves `GET /metrics` on this listener; omitted: not here (METRICS_PORT serves it, or nothing does). */
  metricsAccess?: MetricsAccess;
  /** Single sign-on (`/auth/oidc/*`, docs/team-accounts.md); omitted: not offered. */
  sso?: SsoConfig;
}

type Env = { Bindings: HttpBindings };

/** Calls in one `/trpc` batch unless configured (LIMIT_TRPC_BATCH_SIZE): what the dashboard and the client send at most. */
export const DEFAULT_TRPC_BATCH_SIZE = 10;

/** Only those below: HSTS in particular is the TLS-ending proxy's to decide. */
const ONLY_THESE_HEADERS = {
  xFrameOptions: 'DENY',
  xContentTypeOptions: true,
  referrerPolicy: true,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/** The dashboard talks only to its own origin and is never framed (clickjacking). */
const DASHBOARD_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    styleSrc: ["'self'", "'unsafe-inline'"],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  },
  ...ONLY_THESE_HEADERS,
});

/**
 * The portal page is shown to a provider's customers, with the provider's logo (any https address)
 * as the only thing from elsewhere: no inline script or style at all, never framed, and no
 * Referer, so the one-time code in its first address reaches no one (docs/portal.md, The portal page).
 */
const PORTAL_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'https:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  },
  ...ONLY_THESE_HEADERS,
});

type App = Hono<Env>;

interface StaticBuild {
  /** Where it is served: `/dashboard`. */
  prefix: string;
  dir: string;
  headers: ReturnType<typeof secureHeaders>;
  notBuilt: Problem;
}

/**
 * A production build of a single-page app at `prefix/`. Vite names assets by content hash, so those
 * are cached for good and nothing else is; each text file is sent as the build compressed it (.br,
 * .gz) when the caller accepts that. `root` is left out, so that an app not built yet is a 503 of
 * its own rather than a warning on standard error at start.
 */
function serveBuild(app: App, build: StaticBuild, respondWith: (c: HonoContext<Env>, problem: Problem) => Response) {
  const { prefix, dir } = build;
  const assets = join(dir, 'assets') + sep;
  const cacheFor = (path: string, c: { header(name: string, value: string): void }) =>
    c.header('cache-control', path.startsWith(assets) ? 'public, max-age=31536000, immutable' : 'no-cache');
  app.get(prefix, (c) => c.redirect(`${prefix}/${new URL(c.req.url).search}`, 308));
  app.use(`${prefix}/*`, build.headers);
  app.get(
    `${prefix}/*`,
    serveStatic({
      rewriteRequestPath: (path) => join(dir, path.slice(prefix.length + 1)),
      precompressed: true,
      onFound: cacheFor,
    }),
  );
  // A missing asset (under assets/, or a top-level file such as favicon.svg) is stale or mistyped.
  // Deeper paths are app routes, whose names may hold dots (/ratelimits/api.requests).
  app.get(`${prefix}/*`, async (c, next) => {
    const relative = c.req.path.slice(prefix.length + 1);
    if (relative.startsWith('assets/') || (!relative.includes('/') && extname(relative) !== '')) {
      return respondWith(c, problems.routeNotFound(c.req.path));
    }
    return next();
  });
  // Any other path is the app's to route, in the browser: its index.html.
  app.get(`${prefix}/*`, serveStatic({ path: join(dir, 'index.html'), precompressed: true, onFound: cacheFor }));
  app.get(`${prefix}/*`, (c) => respondWith(c, build.notBuilt));
}

/**
 * The HTTP host. `listener` is what the Node server runs: every request goes through one wrapper
 * (requests.ts: its id, its log line, the metrics), then `/v2` (the public contract, probes
 * included) through its own transport (v2.ts), and everything else (`/trpc` for internal typed
 * callers, the dashboard, the API's description) through a small Hono app. `handleV2` is the `/v2`
 * pipeline without any transport (for measuring it alone).
 */
export function createHttp(deps: AppDeps) {
  const router = deps.router ?? appRouter;
  const contextFor = (requestId: string, caller: CallerHeaders): Context =>
    createContextInner({
      em: lazyFork(deps.orm),
      requestId,
      authorization: caller.authorization,
      vaultMasterKey: deps.vaultMasterKey,
      services: deps.services,
      session: caller.session,
      portalSession: caller.portalSession,
      clientAddress: caller.clientAddress,
      requestOrigin: caller.requestOrigin,
      requestHost: caller.requestHost,
      forwardedProto: caller.forwardedProto,
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
  const v2 = v2Route({ handleV2, readiness: deps.readiness, errorsBaseUrl: deps.errorsBaseUrl, clientAddressOf });

  // The request wrapper's view of each request the Hono app answers.
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const exchangeOf = (c: HonoContext<Env>) => exchanges.get(c.env.incoming) as Exchange;

  const app = new Hono<Env>();
  const respondWith = (c: HonoContext<Env>, problem: Problem) =>
    c.json(problemBody(problem, exchangeOf(c).requestId, deps.errorsBaseUrl), problem.status as never);

  const limitBody = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) => respondWith(c, problems.bodyTooLarge(deps.maxBodyBytes)),
  });
  app.all('/trpc/*', limitBody, (c) => {
    const authorization = c.req.header('authorization');
    // Without an Authorization header the caller can only be the dashboard, by its session cookie.
    const refusal = authorization === undefined ? crossSiteRefusal(c.req.raw) : undefined;
    if (refusal !== undefined) return respondWith(c, problems.crossSiteRequest(refusal));
    const exchange = exchangeOf(c);
    return fetchRequestHandler({
      endpoint: '/trpc',
      req: c.req.raw,
      router,
      allowMethodOverride: true,
      // Each call of a batch runs at once, side by side: a bound on them is a bound on what one
      // request can make the node do (docs/contract.md#limits). Larger batches are a 400.
      maxBatchSize: deps.maxBatchSize ?? DEFAULT_TRPC_BATCH_SIZE,
      createContext: ({ resHeaders }) => ({
        ...contextFor(exchange.requestId, {
          authorization,
          clientAddress: clientAddressOf(c.env.incoming),
          requestOrigin: requestOriginOf(c.req.raw),
          metricsDisabled: metricsDisabledBy(c.req.header(METRICS_HEADER)),
          session: authorization === undefined ? cookieSessionCarrier(c, resHeaders) : undefined,
          portalSession: authorization === undefined ? portalCookieCarrier(c, resHeaders) : undefined,
          onWorkspaceRateLimit: (state) => {
            for (const [name, value] of Object.entries(workspaceRateLimitHeaders(state))) resHeaders.set(name, value);
          },
        }),
        // The calls of one batch run one after the other: a batch costs what its calls cost in turn.
        inTurn: oneAtATime(),
      }),
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') exchange.failure = error.cause ?? error;
      },
    });
  });

  const { metrics, metricsAccess } = deps;
  if (metrics !== undefined && metricsAccess !== undefined) {
    app.get('/metrics', async (c) => {
      if (!scrapeAllowed(metricsAccess, c.req.header('authorization'))) {
        c.header('WWW-Authenticate', 'Bearer');
        return respondWith(c, problems.metricsTokenRequired());
      }
      const { contentType, body } = await exposition(metrics);
      return c.body(body, 200, { 'content-type': contentType });
    });
  }

  if (deps.sso !== undefined) {
    app.route(
      '/auth/oidc',
      ssoRoutes({
        orm: deps.orm,
        logger: deps.logger,
        services: deps.services,
        sso: deps.sso,
        clientAddressOf,
      }),
    );
  }

  // The API's description and its reference page: public, like the contract they describe.
  const description = openApiDescription(router);
  app.get('/openapi.json', (c) => c.body(description.json, 200, { 'content-type': 'application/json' }));
  app.get('/openapi.yaml', (c) => c.body(description.yaml, 200, { 'content-type': 'application/yaml' }));
  app.get('/docs', (c) => c.html(API_REFERENCE_PAGE));
  app.get('/docs/scalar.js', (c) => scalarBundleResponse(c.req.raw));

  const { dashboardDir, portalDir } = deps;
  if (dashboardDir !== undefined) {
    serveBuild(
      app,
      { prefix: '/dashboard', dir: dashboardDir, headers: DASHBOARD_HEADERS, notBuilt: problems.dashboardNotBuilt() },
      respondWith,
    );
  }
  if (portalDir !== undefined) {
    serveBuild(
      app,
      { prefix: '/portal', dir: portalDir, headers: PORTAL_HEADERS, notBuilt: problems.portalNotBuilt() },
      respondWith,
    );
  }

  app.notFound((c) => respondWith(c, problems.routeNotFound(c.req.path)));
  app.onError((error, c) => {
    exchangeOf(c).failure = error;
    return respondWith(c, problems.unexpected());
  });

  const honoListener = getRequestListener(app.fetch);
  const listener = requestListener(
    {
      logger: deps.logger,
      logRequests: deps.logRequests !== false,
      metrics: deps.metrics,
      readiness: deps.readiness,
      errorsBaseUrl: deps.errorsBaseUrl,
    },
    (request, response, exchange) => {
      const answered = v2(request, response, exchange);
      if (answered !== undefined) return answered;
      exchanges.set(request, exchange);
      return honoListener(request, response);
    },
  );

  return { listener, handleV2 };
}

/** The Node HTTP server that runs the listener: what `npm start` listens with, and what tests drive over a socket. */
export function createHttpServer(deps: AppDeps): Server {
  const { listener } = createHttp(deps);
  return createServer((request, response) => void listener(request, response));
}
