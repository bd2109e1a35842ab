import { namespaceNotFound } from '@keyplane/core';
import { type EntityManager, findLiveRatelimitNamespace, type RatelimitNamespaceRecord } from '@keyplane/db';

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
