import {
  apiNotFound,
  DomainError,
  identityExists,
  keyNotFound,
  limitExceeded,
  migrationNotFound,
  permissionExists,
  permissionNotFound,
  roleExists,
  roleNotFound,
} from '@keyplane/core';
import { LimitReached, RowExists, RowNotFound } from '@keyplane/db';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

const STATUS_TO_CODE: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
};

/** Domain errors become tRPC errors with the same public message; the domain error rides along as cause. */
export function toTRPCError(error: DomainError): TRPCError {
  return new TRPCError({
    code: STATUS_TO_CODE[error.status] ?? 'INTERNAL_SERVER_ERROR',
    message: error.message,
    cause: error,
  });
}

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
};

/**
 * The public error a failure stands for, if it stands for one: a DomainError thrown anywhere, or
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
