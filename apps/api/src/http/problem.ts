import type { FieldError } from '@keyplane/core';
import { type PublicError, publicError, titleOf, UNEXPECTED_ERROR } from '@keyplane/procedures';

// The `/v2` envelope of an error and the problems of the transport itself. What a procedure throws
// becomes a public error in packages/procedures/src/errors.ts, whose table gives titles and types.

/** An error answer before it is put in the envelope. `type` is relative to the errors base URL. */
export type Problem = PublicError;

/** nginx's status for a request whose client hung up before it was answered: logged, never sent. */
export const CLIENT_CLOSED_REQUEST = 499;

function invalidInput(detail: string, errors: FieldError[]): Problem {
  return { ...publicError(400, detail), errors };
}

const PROBLEM_JSON = 'application/problem+json';

/**
 * The media type of an answer of this status. Errors are `application/json` as the reference
 * answers them, but `application/problem+json` when the caller's Accept names it, and always for
 * 429: the reference's published schema declares its 429s so, and the SDKs generated from it raise
 * their typed error only then (docs/contract.md, SDK compatibility).
 */
export function mediaTypeOf(status: number, accept: string | undefined): string {
  if (status < 400) return 'application/json';
  return status === 429 || accept?.includes(PROBLEM_JSON) ? PROBLEM_JSON : 'application/json';
}

export function problemBody(problem: Problem, requestId: string, errorsBaseUrl: string) {
  return {
    meta: { requestId },
    error: {
      title: titleOf(problem.status),
      detail: problem.detail,
      status: problem.status,
      type: `${errorsBaseUrl.replace(/\/$/, '')}/${problem.type}`,
      ...(problem.status === 400 ? { errors: problem.errors ?? [] } : {}),
    },
  };
}

export const problems = {
  methodNotAllowed: (method: string, allowed: 'POST' | 'GET' = 'POST'): Problem =>
    publicError(
      405,
      allowed === 'POST'
        ? `Procedures are called with POST, not ${method}.`
        : `This endpoint is read with ${allowed}, not ${method}.`,
    ),
  unknownProcedure: (path: string): Problem => ({
    status: 404,
    type: 'service/routing/procedure_not_found',
    detail: `There is no procedure '${path}'. Paths have the form /v2/<service>.<procedure>.`,
  }),
  routeNotFound: (path: string): Problem => ({
    status: 404,
    type: 'service/routing/route_not_found',
    detail: `Nothing is served at ${path}.`,
  }),
  bodyTooLarge: (limit: number): Problem =>
    publicError(413, `The request body is larger than the limit of ${limit} bytes.`),
  unsupportedMediaType: (contentType: string): Problem =>
    publicError(415, `The Content-Type must be application/json, not '${contentType}'.`),
  malformedJson: (reason: string): Problem =>
    invalidInput(`The request body is not valid JSON: ${reason}`, [
      { location: 'body', message: 'malformed JSON', fix: 'Send a JSON object.' },
    ]),
  notAnObject: (): Problem =>
    invalidInput('The request body must be a JSON object.', [
      { location: 'body', message: 'expected a JSON object', fix: 'Send the parameters as a JSON object.' },
    ]),
  crossSiteRequest: (reason: string): Problem => ({
    status: 403,
    type: 'service/authorization/cross_site_request',
    detail: `Refused a cookie-authenticated request: ${reason}`,
  }),
  metricsTokenRequired: (): Problem => ({
    status: 401,
    type: 'service/authentication/metrics_token_required',
    detail: 'Scraping /metrics takes the bearer token set in METRICS_TOKEN: send Authorization: Bearer <token>.',
  }),
  dashboardNotBuilt: (): Problem => ({
    status: 503,
    type: 'service/application/dashboard_not_built',
    detail: 'The dashboard has not been built. Run `npm run build -w @keyplane/dashboard` (npm start does it).',
  }),
  portalNotBuilt: (): Problem => ({
    status: 503,
    type: 'service/application/portal_not_built',
    detail: 'The customer portal page has not been built. Run `npm run build -w @keyplane/portal` (npm start does it).',
  }),
  notReady: (reasons: readonly string[]): Problem => ({
    status: 503,
    type: 'service/application/not_ready',
    detail: `This node is not ready: ${reasons.join('; ')}.`,
  }),
  clientClosedRequest: (): Problem => ({
    status: CLIENT_CLOSED_REQUEST,
    type: 'user/bad_request/client_closed_request',
    detail: 'The client closed the connection before sending the whole request.',
  }),
  unexpected: (): Problem => UNEXPECTED_ERROR,
};
