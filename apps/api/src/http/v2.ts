import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WorkspaceRateLimitState } from '@keyplane/core';
import { type PortalSessionCarrier, publicErrorOf, type SessionCarrier } from '@keyplane/procedures';
import { type AnyTRPCRouter, callTRPCProcedure } from '@trpc/server';
import { parse } from 'hono/utils/cookie';
import type { Readiness } from '../readiness.ts';
import { BodyTooLargeError, ClientClosedRequestError, readIncomingBody } from './body.ts';
import { mediaTypeOf, type Problem, problemBody, problems } from './problem.ts';
import { publicProcedureTable } from './procedureTable.ts';
import { workspaceRateLimitHeaders } from './rateLimitHeaders.ts';
import type { Exchange, Route } from './requests.ts';
import { PORTAL_SESSION_COOKIE } from './sessionCookie.ts';

/** A `/v2/<procedure>` call, as the transport read it from the request. */
export interface V2Call {
  method: string;
  procedure: string;
  contentType: string | undefined;
  authorization: string | undefined;
  /** `X-Unkey-Metrics: disabled`: do not record this call in analytics. */
  metricsDisabled: boolean;
  /** The Host and X-Forwarded-Proto headers, from which a link's origin is made only when one is (linkOrigin). */
  host?: string;
  forwardedProto?: string;
  /** The Cookie header: read only by a portal customer's procedure, for its `portal_session` (the reference SDK sends it so). */
  cookie?: string;
  /** Who connected (behind a trusted proxy, whom it names): read only for a change the audit log records. */
  clientAddress?(): string | undefined;
  readBody(limit: number): Promise<string>;
}

/** What a context takes from the request's headers, and how it hands back what the response shows. */
export interface CallerHeaders {
  authorization: string | undefined;
  metricsDisabled: boolean;
  clientAddress?: string;
  /** The origin the request was made to, where the transport knows it (links are made on it without PUBLIC_URL). */
  requestOrigin?: string;
  /** Or, where building the origin for every call would cost the hot path, the headers to make it from. */
  requestHost?: string;
  forwardedProto?: string;
  session?: SessionCarrier;
  /** The `portal_session` cookie, where the transport has cookies (`/trpc`). */
  portalSession?: PortalSessionCarrier;
  onWorkspaceRateLimit?(state: WorkspaceRateLimitState): void;
}

/** The reference's header for opting one call out of analytics. */
export const METRICS_HEADER = 'x-unkey-metrics';

/** The reference's opt-out of analytics for one call. */
export function metricsDisabledBy(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.trim().toLowerCase() === 'disabled';
}

export interface V2Answer {
  status: number;
  body: unknown;
  /** Allow on 405; the workspace API rate limit's RateLimit-* and Retry-After. */
  headers?: Record<string, string>;
  failure?: unknown;
}

export type V2Handler = (call: V2Call, requestId: string) => Promise<V2Answer>;

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The public contract's pipeline, without any transport: method, procedure, media type, body, then
 * the procedure through tRPC's own caller (its middleware, input and output validation, as at
 * `/trpc`), in one envelope.
 */
export function createV2Handler<TContext>(options: {
  router: AnyTRPCRouter;
  maxBodyBytes: number;
  errorsBaseUrl: string;
  contextFor(requestId: string, caller: CallerHeaders): TContext;
}): V2Handler {
  const { router, maxBodyBytes, errorsBaseUrl } = options;
  const table = publicProcedureTable(router);
  return async (call, requestId) => {
    const answer = (problem: Problem, extra: Partial<V2Answer> = {}): V2Answer => ({
      status: problem.status,
      body: problemBody(problem, requestId, errorsBaseUrl),
      ...extra,
    });
    if (call.method !== 'POST') {
      return answer(problems.methodNotAllowed(call.method), { headers: { Allow: 'POST' } });
    }
    const procedure = table.get(call.procedure);
    if (procedure === undefined) return answer(problems.unknownProcedure(call.procedure));
    if (call.contentType !== undefined && !JSON_CONTENT_TYPE.test(call.contentType)) {
      return answer(problems.unsupportedMediaType(call.contentType));
    }
    let text: string;
    try {
      text = await call.readBody(maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return answer(problems.bodyTooLarge(maxBodyBytes));
      if (error instanceof ClientClosedRequestError) return answer(problems.clientClosedRequest());
      throw error;
    }
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      return answer(problems.malformedJson(error instanceof Error ? error.message : 'unreadable'));
    }
    // Arrays pass on to the procedure's schema (a batch procedure may take one); scalars never do.
    if (typeof input !== 'object' || input === null) return answer(problems.notAnObject());

    let headers: Record<string, string> | undefined;
    const ctx = options.contextFor(requestId, {
      authorization: call.authorization,
      metricsDisabled: call.metricsDisabled,
      requestHost: call.host,
      forwardedProto: call.forwardedProto,
      clientAddress: procedure.audited ? call.clientAddress?.() : undefined,
      portalSession: procedure.portalSession ? presentedPortalSession(call.cookie) : undefined,
      onWorkspaceRateLimit: (state) => {
        headers = workspaceRateLimitHeaders(state);
      },
    });
    let data: unknown;
    try {
      data = await callTRPCProcedure({
        router,
        path: call.procedure,
        type: procedure.type,
        ctx,
        getRawInput: async () => input,
        // Given, though undefined, as tRPC's own callers give it: without it every middleware level
        // copies the options at a higher cost (docs/decisions/0001-own-v2-transport.md).
        input: undefined,
        signal: undefined,
        batchIndex: 0,
      });
    } catch (cause) {
      const problem = publicErrorOf(cause);
      return answer(problem, { headers, ...(problem.status >= 500 ? { failure: cause } : {}) });
    }
    if (!procedure.list) return { status: 200, body: { meta: { requestId }, data }, headers };
    const list = data as { data: unknown; pagination: unknown };
    return { status: 200, body: { meta: { requestId }, data: list.data, pagination: list.pagination }, headers };
  };
}

/**
 * The `portal_session` cookie a `/v2` call presents, read only: `/v2` sets no cookies (a customer's
 * client keeps the token `portal.exchangeCode` answered and sends it back, as the reference SDK does).
 */
function presentedPortalSession(cookieHeader: string | undefined): PortalSessionCarrier | undefined {
  if (cookieHeader === undefined) return undefined;
  const presented = parse(cookieHeader, PORTAL_SESSION_COOKIE)[PORTAL_SESSION_COOKIE];
  return presented === undefined ? undefined : { presented, issue() {}, clear() {} };
}

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const V2_PATH = /^\/v2\/([^/?#]+)(?:\?.*)?$/;

/** A `/v2` call waiting for the end of the event loop's turn in which it arrived. */
interface ArrivedCall {
  request: IncomingMessage;
  response: ServerResponse;
  name: string;
  exchange: Exchange;
  answered(): void;
  failed(error: unknown): void;
}

/**
 * The transport of `/v2`: Node's request and response, straight into the pipeline (no web
 * Request/Response conversion on the hot path). The route it returns answers a request whose path
 * is `/v2/<name>`, and returns undefined for any other path.
 */
export function v2Route(options: {
  handleV2: V2Handler;
  readiness: Readiness;
  errorsBaseUrl: string;
  /** The caller's address as TRUST_PROXY says to read it (clientAddress.ts). */
  clientAddressOf?: (request: IncomingMessage) => string | undefined;
}) {
  const { handleV2, readiness, errorsBaseUrl, clientAddressOf } = options;

  /** Liveness and readiness: read with GET, answered by the transport itself, never by a procedure. */
  async function probe(name: 'liveness' | 'readiness', method: string, requestId: string): Promise<V2Answer> {
    if (method !== 'GET') {
      return {
        status: 405,
        body: problemBody(problems.methodNotAllowed(method, 'GET'), requestId, errorsBaseUrl),
        headers: { Allow: 'GET' },
      };
    }
    const reasons = name === 'readiness' ? await readiness.check() : [];
    return reasons.length === 0
      ? { status: 200, body: { meta: { requestId }, data: { message: 'OK' } } }
      : { status: 503, body: problemBody(problems.notReady(reasons), requestId, errorsBaseUrl) };
  }

  // The /v2 calls that arrive in one turn of the event loop are answered together, once that turn's
  // I/O is read: their pipelines then run interleaved, a stage for every call in a row, so the
  // pipeline's code and data stay in the CPU caches. Answered one by one, the HTTP parsing of each
  // next request evicts them (docs/decisions/0001-own-v2-transport.md).
  let arrived: ArrivedCall[] = [];
  const answerArrived = () => {
    const batch = arrived;
    arrived = [];
    for (const call of batch) answer(call).then(call.answered, call.failed);
  };

  async function answer({ request, response, name, exchange }: ArrivedCall): Promise<void> {
    const { requestId } = exchange;
    const method = request.method ?? 'GET';
    let reply: V2Answer;
    if (name === 'liveness' || name === 'readiness') {
      reply = await probe(name, method, requestId);
    } else {
      exchange.procedure = name;
      try {
        reply = await handleV2(
          {
            method,
            procedure: name,
            contentType: request.headers['content-type'],
            authorization: request.headers.authorization,
            metricsDisabled: metricsDisabledBy(request.headers[METRICS_HEADER]),
            host: request.headers.host,
            forwardedProto: firstHeader(request.headers['x-forwarded-proto']),
            cookie: request.headers.cookie,
            clientAddress: clientAddressOf && (() => clientAddressOf(request)),
            readBody: (limit) => readIncomingBody(request, limit),
          },
          requestId,
        );
      } catch (error) {
        reply = { status: 500, body: problemBody(problems.unexpected(), requestId, errorsBaseUrl), failure: error };
      }
    }
    exchange.failure = reply.failure;
    // A client that hung up is not answered (requests.ts logs it as such).
    if (!request.socket.destroyed) {
      // Checked again as the answer goes out: a call that arrived before the stop began waited for
      // the end of its turn, and its answer may be the first to say the node is stopping.
      if (readiness.isStopping()) response.setHeader('connection', 'close');
      const payload = JSON.stringify(reply.body);
      response.writeHead(reply.status, {
        'content-type': mediaTypeOf(reply.status, request.headers.accept),
        'content-length': Buffer.byteLength(payload),
        ...reply.headers,
      });
      response.end(payload);
    }
  }

  return (...[request, response, exchange]: Parameters<Route>): ReturnType<Route> | undefined => {
    const name = V2_PATH.exec(request.url ?? '')?.[1];
    if (name === undefined) return undefined;
    return new Promise((answered, failed) => {
      if (arrived.push({ request, response, name, exchange, answered, failed }) === 1) setImmediate(answerArrived);
    });
  };
}
