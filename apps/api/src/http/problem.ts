import type { FieldError } from '@keyplane/core';
import { domainErrorOf } from '@keyplane/procedures';
import { getTRPCErrorFromUnknown } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

/** An error answer before it is put in the envelope. `type` is relative to the errors base URL. */
export interface Problem {
  status: number;
  type: string;
  detail: string;
  errors?: FieldError[];
}

// The reference API's titles, so clients matching on them keep working.
export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflicting Resource',
  410: 'Resource Gone',
  412: 'Precondition Failed',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  499: 'Client Closed Request',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const GENERIC_TYPES: Record<number, string> = {
  400: 'service/application/invalid_input',
  401: 'service/authentication/unauthorized',
  403: 'service/authorization/forbidden',
  404: 'service/data/not_found',
  405: 'service/application/method_not_allowed',
  409: 'service/data/conflict',
  412: 'service/application/precondition_failed',
  413: 'user/bad_request/request_body_too_large',
  415: 'user/bad_request/unsupported_media_type',
  429: 'user/too_many_requests/rate_limited',
};

/** nginx's status for a request whose client hung up before it was answered: logged, never sent. */
export const CLIENT_CLOSED_REQUEST = 499;

const UNEXPECTED: Problem = {
  status: 500,
  type: 'service/application/unexpected_error',
  detail: 'An unexpected error occurred. Please contact support and quote the requestId.',
};

interface SchemaIssue {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
  keys?: string[];
}

function hasIssues(cause: unknown): cause is { issues: SchemaIssue[] } {
  return typeof cause === 'object' && cause !== null && Array.isArray((cause as { issues?: unknown }).issues);
}

/** `body.ratelimits[0].name`, the location style of the reference API's documentation. */
export function bodyLocation(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (location, key) => (typeof key === 'number' ? `${location}[${key}]` : `${location}.${String(key)}`),
    'body',
  );
}

function fieldErrorsFromIssues(issues: SchemaIssue[]): FieldError[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' && issue.keys
      ? issue.keys.map((key) => ({
          location: bodyLocation([...issue.path, key]),
          message: `unknown field '${key}'`,
          fix: 'Remove this field; the procedure does not accept it.',
        }))
      : [{ location: bodyLocation(issue.path), message: issue.message }],
  );
}

export function invalidInput(detail: string, errors: FieldError[]): Problem {
  return { status: 400, type: GENERIC_TYPES[400] as string, detail, errors };
}

/**
 * The one place where anything thrown by a procedure becomes a public error. Messages of 5xx
 * errors are never passed on; the caller logs the cause.
 */
export function problemFromError(error: unknown): Problem {
  const trpcError = getTRPCErrorFromUnknown(error);
  const domain = domainErrorOf(trpcError);
  if (domain) {
    return {
      status: domain.status,
      type: domain.type,
      detail: domain.message,
      ...(domain.status === 400 ? { errors: domain.fieldErrors } : {}),
    };
  }
  const status = getHTTPStatusCodeFromError(trpcError);
  if (status === 400 && hasIssues(trpcError.cause)) {
    const errors = fieldErrorsFromIssues(trpcError.cause.issues);
    const summary = errors.map((e) => `${e.location}: ${e.message}`).join('; ');
    return invalidInput(`The request body is invalid. ${summary}`, errors);
  }
  if (status >= 500 || !GENERIC_TYPES[status]) return UNEXPECTED;
  return { status, type: GENERIC_TYPES[status] as string, detail: trpcError.message };
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
      title: TITLES[problem.status] ?? 'Error',
      detail: problem.detail,
      status: problem.status,
      type: `${errorsBaseUrl.replace(/\/$/, '')}/${problem.type}`,
      ...(problem.status === 400 ? { errors: problem.errors ?? [] } : {}),
    },
  };
}

export const problems = {
  methodNotAllowed: (method: string, allowed: 'POST' | 'GET' = 'POST'): Problem => ({
    status: 405,
    type: GENERIC_TYPES[405] as string,
    detail:
      allowed === 'POST'
        ? `Procedures are called with POST, not ${method}.`
        : `This endpoint is read with ${allowed}, not ${method}.`,
  }),
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
  bodyTooLarge: (limit: number): Problem => ({
    status: 413,
    type: GENERIC_TYPES[413] as string,
    detail: `The request body is larger than the limit of ${limit} bytes.`,
  }),
  unsupportedMediaType: (contentType: string): Problem => ({
    status: 415,
    type: GENERIC_TYPES[415] as string,
    detail: `The Content-Type must be application/json, not '${contentType}'.`,
  }),
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
  unexpected: (): Problem => UNEXPECTED,
};
