import {
  apiNotFound,
  DomainError,
  type FieldError,
  identityExists,
  keyNotFound,
  limitExceeded,
  migrationNotFound,
  permissionExists,
  permissionNotFound,
  portalSlugExists,
  roleExists,
  roleNotFound,
} from '@keyplane/core';
import { LimitReached, RowExists, RowNotFound } from '@keyplane/db';
import { getTRPCErrorFromUnknown, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/**
 * An error as the public sees it: `/v2` puts it in its envelope, `/trpc` gives its `type`. `type` is
 * a path under the errors base URL (`service/data/api_not_found`).
 */
export interface PublicError {
  status: number;
  type: string;
  detail: string;
  /** Only a 400 has them (the envelope then always carries the array). */
  errors?: FieldError[];
}

interface PublicStatus {
  /** The reference API's title, which clients match on. */
  title: string;
  /** What `/trpc` answers a domain error of this status with. */
  code: TRPC_ERROR_CODE_KEY;
  /** The type of an error of this status that names none of its own; without one, such an error is unexpected. */
  type?: string;
}

/**
 * Every status the service sends an error with (docs/contract.md#statuses-and-types): one table for
 * `/v2`'s envelope, `/trpc`'s error data and the OpenAPI document.
 */
export const PUBLIC_STATUSES: Readonly<Record<number, PublicStatus>> = {
  400: { title: 'Bad Request', code: 'BAD_REQUEST', type: 'service/application/invalid_input' },
  401: { title: 'Unauthorized', code: 'UNAUTHORIZED', type: 'service/authentication/unauthorized' },
  403: { title: 'Forbidden', code: 'FORBIDDEN', type: 'service/authorization/forbidden' },
  404: { title: 'Not Found', code: 'NOT_FOUND', type: 'service/data/not_found' },
  405: { title: 'Method Not Allowed', code: 'METHOD_NOT_SUPPORTED', type: 'service/application/method_not_allowed' },
  409: { title: 'Conflicting Resource', code: 'CONFLICT', type: 'service/data/conflict' },
  410: { title: 'Resource Gone', code: 'NOT_FOUND' },
  412: {
    title: 'Precondition Failed',
    code: 'PRECONDITION_FAILED',
    type: 'service/application/precondition_failed',
  },
  413: {
    title: 'Request Entity Too Large',
    code: 'PAYLOAD_TOO_LARGE',
    type: 'user/bad_request/request_body_too_large',
  },
  415: {
    title: 'Unsupported Media Type',
    code: 'UNSUPPORTED_MEDIA_TYPE',
    type: 'user/bad_request/unsupported_media_type',
  },
  422: { title: 'Unprocessable Entity', code: 'UNPROCESSABLE_CONTENT' },
  429: { title: 'Too Many Requests', code: 'TOO_MANY_REQUESTS', type: 'user/too_many_requests/rate_limited' },
  /** nginx's status for a request whose client hung up before it was answered: logged, never sent. */
  499: { title: 'Client Closed Request', code: 'CLIENT_CLOSED_REQUEST' },
  500: { title: 'Internal Server Error', code: 'INTERNAL_SERVER_ERROR' },
  503: { title: 'Service Unavailable', code: 'SERVICE_UNAVAILABLE' },
};

export const titleOf = (status: number): string => PUBLIC_STATUSES[status]?.title ?? 'Error';

/** The statuses that have a type of their own. */
export type TypedStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 429;

/** An error with its status's own type (a 400's, a 413's, …). */
export function publicError(status: TypedStatus, detail: string): PublicError {
  return { status, type: PUBLIC_STATUSES[status]?.type as string, detail };
}

export const UNEXPECTED_ERROR: PublicError = {
  status: 500,
  type: 'service/application/unexpected_error',
  detail: 'An unexpected error occurred. Please contact support and quote the requestId.',
};

const MISSING: Record<RowNotFound['kind'], (reference?: string) => DomainError> = {
  api: (apiId) => apiNotFound(apiId ?? ''),
  key: keyNotFound,
  migration: (migrationId) => migrationNotFound(migrationId ?? ''),
  role: roleNotFound,
  permission: permissionNotFound,
};

const TAKEN: Record<RowExists['kind'], (reference: string) => DomainError> = {
  identity: identityExists,
  role: roleExists,
  permission: permissionExists,
  portal: portalSlugExists,
};

/**
 * The domain error a failure stands for, if it stands for one: a DomainError thrown anywhere, or
 * what data access reported about rows, in core's words.
 */
export function domainErrorOf(error: unknown): DomainError | undefined {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof DomainError) return cause;
  if (cause instanceof RowNotFound) return MISSING[cause.kind](cause.reference);
  if (cause instanceof RowExists) return TAKEN[cause.kind](cause.reference);
  if (cause instanceof LimitReached) return limitExceeded(cause.resource, cause.limit);
  return undefined;
}

/** A domain error as tRPC's, with the same public message; the domain error rides along as cause. */
export function toTRPCError(error: DomainError): TRPCError {
  return new TRPCError({
    code: PUBLIC_STATUSES[error.status]?.code ?? 'INTERNAL_SERVER_ERROR',
    message: error.message,
    cause: error,
  });
}

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
function bodyLocation(path: readonly PropertyKey[]): string {
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

/**
 * The one place where anything a procedure throws becomes a public error: a domain error as it
 * is, input its schema refused as the contract's invalid input, any other 4xx as its status's own
 * type. Messages of 5xx errors are never passed on; the caller logs the cause.
 */
export function publicErrorOf(error: unknown): PublicError {
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
    return { ...publicError(400, `The request body is invalid. ${summary}`), errors };
  }
  const type = PUBLIC_STATUSES[status]?.type;
  if (status >= 500 || type === undefined) return UNEXPECTED_ERROR;
  return { status, type, detail: trpcError.message };
}
