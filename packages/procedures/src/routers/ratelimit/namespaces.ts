import { type DomainError, gone, notFound } from '@keyplane/core';
import { type EntityManager, findLiveRatelimitNamespace, type RatelimitNamespaceRecord } from '@keyplane/db';

/** Unknown, deleted and other workspaces' namespaces alike, for every procedure but limiting. */
export const namespaceNotFound = (): DomainError => notFound('ratelimit_namespace', 'This namespace does not exist.');

/** Limiting on a deleted namespace: the reference tells it apart from a missing one (which it creates). */
export const namespaceGone = (): DomainError =>
  gone('ratelimit_namespace', 'This namespace has been deleted. Contact support to restore.');

export const overrideNotFound = (): DomainError => notFound('ratelimit_override', 'This override does not exist.');

/** The workspace's live namespace with this id or name, or the 404. */
export async function requireLiveNamespace(
  em: EntityManager,
  workspaceId: string,
  namespace: string,
): Promise<RatelimitNamespaceRecord> {
  const found = await findLiveRatelimitNamespace(em, workspaceId, namespace);
  if (!found) throw namespaceNotFound();
  return found;
}
