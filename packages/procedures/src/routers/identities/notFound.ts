import { type DomainError, notFound } from '@keyplane/core';

/** Unknown, deleted and other workspaces' identities alike: the reference's wording. */
export const identityNotFound = (): DomainError => notFound('identity', 'This identity does not exist.');
