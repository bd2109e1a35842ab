import type { LimitedResource } from '@keyplane/core';

/**
 * What data access reports when a write cannot happen as asked; reads answer `undefined` instead.
 * Plain facts about rows, not public errors: the procedures turn them into the contract's answers
 * (packages/procedures/src/errors.ts), where every public wording lives in core.
 */

/** A row a write needs does not exist (for the caller's workspace), or was deleted meanwhile. */
export class RowNotFound extends Error {
  readonly kind: 'api' | 'key' | 'migration' | 'role' | 'permission';
  /** How the caller named it (its id, name or slug); absent for the one resource a call is about. */
  readonly reference: string | undefined;

  constructor(kind: RowNotFound['kind'], reference?: string) {
    super(`no ${kind} ${reference ?? ''}`.trim());
    this.name = 'RowNotFound';
    this.kind = kind;
    this.reference = reference;
  }
}

/** A row a write would create already exists under a name that must be unique. */
export class RowExists extends Error {
  readonly kind: 'identity' | 'role' | 'permission' | 'portal';
  /** The name, slug or externalId that is taken. */
  readonly reference: string;

  constructor(kind: RowExists['kind'], reference: string) {
    super(`a ${kind} '${reference}' exists already`);
    this.name = 'RowExists';
    this.kind = kind;
    this.reference = reference;
  }
}

/** A write would take a workspace, a namespace or a key past one of its bounds (docs/contract.md#limits). */
export class LimitReached extends Error {
  readonly resource: LimitedResource;
  readonly limit: number;

  constructor(resource: LimitedResource, limit: number) {
    super(`at most ${limit} ${resource}`);
    this.name = 'LimitReached';
    this.resource = resource;
    this.limit = limit;
  }
}
