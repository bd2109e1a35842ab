import { newId } from '@keyplane/core';

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
export const TRACEPARENT_HEADER = 'traceparent';

/** `version-traceId-parentId-flags`, version 00; an all-zero trace id is invalid. */
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const INVALID_TRACE_ID = '0'.repeat(32);

/** The trace id of a well-formed `traceparent` header, so logs can be joined to the caller's trace. */
export function traceIdFrom(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const traceId = TRACEPARENT.exec(header)?.[1];
  return traceId === INVALID_TRACE_ID ? undefined : traceId;
}
