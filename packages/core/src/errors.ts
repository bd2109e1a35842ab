/** Where a bad input was found, for the `errors[]` of a 400 answer. */
export interface FieldError {
  location: string;
  message: string;
  fix?: string;
}

/**
 * An expected failure with a public, safe message. `status` is the HTTP-style status the public
 * contract gives it; `type` is the path under the errors base URL (`service/data/api_not_found`).
 */
export class DomainError extends Error {
  readonly status: number;
  readonly type: string;
  readonly fieldErrors: FieldError[];

  constructor(status: number, type: string, detail: string, fieldErrors: FieldError[] = []) {
    super(detail);
    this.name = 'DomainError';
    this.status = status;
    this.type = type;
    this.fieldErrors = fieldErrors;
  }
}

export type NotFoundResource =
  | 'api'
  | 'key'
  | 'role'
  | 'permission'
  | 'identity'
  | 'workspace'
  | 'migration'
  | 'ratelimit_namespace'
  | 'ratelimit_override'
  | 'root_key';

export function badRequest(detail: string, fieldErrors: FieldError[] = []): DomainError {
  return new DomainError(400, 'service/application/invalid_input', detail, fieldErrors);
}

/** A key of the wrong shape to be read at all (reference: `authentication/malformed`). */
export function malformedKey(detail: string, fieldErrors: FieldError[] = []): DomainError {
  return new DomainError(400, 'service/authentication/malformed', detail, fieldErrors);
}

export function unauthorized(detail: string): DomainError {
  return new DomainError(401, 'service/authentication/unauthorized', detail);
}

export function forbidden(missing: readonly string[]): DomainError {
  const detail =
    missing.length === 1
      ? `Missing permission: '${missing[0]}'.`
      : `Missing permissions: ${missing.map((p) => `'${p}'`).join(', ')}.`;
  return new DomainError(403, 'service/authorization/forbidden', detail);
}

export function notFound(resource: NotFoundResource, detail: string): DomainError {
  return new DomainError(404, `service/data/${resource}_not_found`, detail);
}

/** A resource that existed and was deleted, where the reference tells this apart from never existing. */
export function gone(resource: 'ratelimit_namespace', detail: string): DomainError {
  return new DomainError(410, `service/data/${resource}_gone`, detail);
}

export function conflict(resource: string, detail: string): DomainError {
  return new DomainError(409, `service/data/${resource}_already_exists`, detail);
}

export function preconditionFailed(detail: string): DomainError {
  return new DomainError(412, 'service/application/precondition_failed', detail);
}

/** The spec's 412 causes, with the detail text each one answers. */
export const PRECONDITION_DETAILS = {
  vaultNotSetUp: 'The vault is not set up for this workspace, so keys cannot be stored recoverably or decrypted.',
  keyAuthDisabled: 'The requested API is not set up to handle keys: key authentication is disabled for it.',
  encryptionDisabled: 'The requested API does not support key encryption: encryption is not enabled for it.',
} as const;
