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
