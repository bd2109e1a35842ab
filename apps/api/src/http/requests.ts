import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { newId } from '@keyplane/core';
import type { Logger, RequestLine } from '../log.ts';
import type { NodeMetrics } from '../metrics.ts';
import type { Readiness } from '../readiness.ts';
import { CLIENT_CLOSED_REQUEST, problemBody, problems } from './problem.ts';

/** The header a caller may send its own request id in, and every answer carries its id in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller's own id may look like to be adopted: short, and nothing that could break a log
 * line or a header. Anything else is ignored and the request gets an id of ours.
 */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id: the caller's `X-Request-Id` when it sends a usable one (so its logs and ours
 * name the request alike; unlike ours it need not be unique), else a new `req_…` id.
 */
export function requestIdFor(callerHeader: string | string[] | undefined): string {
  return typeof callerHeader === 'string' && CALLER_REQUEST_ID.test(callerHeader) ? callerHeader : newId('request');
}

/** W3C Trace Context's header, whose trace id the request's log line carries. */
const TRACEPARENT_HEADER = 'traceparent';

/** `version-traceId-parentId-flags`, version 00; an all-zero trace id is invalid. */
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const INVALID_TRACE_ID = '0'.repeat(32);

/** The trace id of a well-formed `traceparent` header, so logs can be joined to the caller's trace. */
function traceIdFrom(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const traceId = TRACEPARENT.exec(header)?.[1];
  return traceId === INVALID_TRACE_ID ? undefined : traceId;
}

export interface RequestOutcome extends RequestLine {
  /** What made a 5xx: logged with its stack, never sent to the caller. */
  failure?: unknown;
}

/**
 * Every answered request is counted in the metrics and gets one log line (failures always, the
 * others unless `logRequests` is off); never any header or body, so no key material.
 */
export function requestRecorder(options: {
  logger: Logger;
  logRequests: boolean;
  metrics?: NodeMetrics;
}): (outcome: RequestOutcome) => void {
  const { logger, logRequests, metrics } = options;
  return (outcome) => {
    metrics?.observeRequest(outcome);
    if (outcome.failure !== undefined) {
      const { failure, ...fields } = outcome;
      fields.durationMs = Math.round(fields.durationMs * 100) / 100;
      logger.error('request failed', { ...fields, error: failure instanceof Error ? failure.stack : String(failure) });
    } else if (logRequests) {
      logger.request(outcome);
    }
  };
}

/** One request as its route sees it: its id, and what the route tells the log line. */
export interface Exchange {
  readonly requestId: string;
  /** The `/v2` procedure the request named; none for probes and other routes. */
  procedure: string | undefined;
  /** What made a 5xx: logged with its stack, never sent to the caller. */
  failure: unknown;
}

/** Answers a request; resolves once it is answered (or its client is gone). */
export type Route = (request: IncomingMessage, response: ServerResponse, exchange: Exchange) => Promise<void>;

/**
 * The one wrapper of every request the API's listener takes, whatever its route: its id (in
 * `X-Request-Id` on the answer), `Connection: close` once the node stops, then one log line and the
 * metrics once it is answered.
 */
export function requestListener(
  options: { logger: Logger; logRequests: boolean; metrics?: NodeMetrics; readiness: Readiness; errorsBaseUrl: string },
  route: Route,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const record = requestRecorder(options);
  const { readiness, errorsBaseUrl } = options;
  return async (request, response) => {
    const started = performance.now();
    const exchange: Exchange = {
      requestId: requestIdFor(request.headers[REQUEST_ID_HEADER]),
      procedure: undefined,
      failure: undefined,
    };
    response.setHeader(REQUEST_ID_HEADER, exchange.requestId);
    // A stopping node closes each connection after its answer, so that no client sends another
    // request on one it is about to close (docs/operations.md#rolling-restarts).
    if (readiness.isStopping()) response.setHeader('connection', 'close');
    try {
      await route(request, response, exchange);
    } catch (error) {
      // Routes answer their own failures; this is the last resort.
      exchange.failure = error;
      if (!response.headersSent) {
        response.statusCode = 500;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(problemBody(problems.unexpected(), exchange.requestId, errorsBaseUrl)));
      }
    }
    record({
      requestId: exchange.requestId,
      method: request.method ?? 'GET',
      // Without the query string: a client may have put a secret in it.
      path: pathOf(request.url),
      procedure: exchange.procedure,
      // A client that hung up before its whole answer went out is logged as such, not as a failure.
      status: request.socket.destroyed && !response.writableFinished ? CLIENT_CLOSED_REQUEST : response.statusCode,
      durationMs: performance.now() - started,
      traceId: traceIdFrom(request.headers[TRACEPARENT_HEADER]),
      failure: exchange.failure,
    });
  };
}

/** The path of a request target, without query string or fragment. */
function pathOf(target = '/'): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}
