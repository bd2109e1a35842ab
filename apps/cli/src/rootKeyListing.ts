import type { RootKeyListing } from '@keyplane/db';

/** A root key as `root-keys list --json` prints it: `expires` and `revokedAt` only when set. */
export interface RootKeyJson {
  rootKeyId: string;
  name: string | null;
  start: string;
  permissions: string[];
  createdAt: number;
  expires?: number;
  revokedAt?: number;
}

export function toRootKeyJson(key: RootKeyListing): RootKeyJson {
  return {
    rootKeyId: key.rootKeyId,
    name: key.name,
    start: key.start,
    permissions: key.permissions,
    createdAt: key.createdAt,
    ...(key.expiresAt === null ? {} : { expires: key.expiresAt }),
    ...(key.revokedAt === null ? {} : { revokedAt: key.revokedAt }),
  };
}

export function describeRootKeys(workspaceId: string, keys: RootKeyListing[], now = Date.now()): string {
  if (keys.length === 0) return `Workspace ${workspaceId} has no root keys.\n`;
  const blocks = keys.map((key) =>
    [
      `${key.rootKeyId}  ${key.name ?? '(unnamed)'}  [${status(key, now)}]`,
      `  start:       ${key.start}…`,
      `  created:     ${iso(key.createdAt)}`,
      `  expires:     ${key.expiresAt === null ? 'never' : iso(key.expiresAt)}`,
      `  permissions: ${key.permissions.length > 0 ? key.permissions.join(', ') : 'none'}`,
    ].join('\n'),
  );
  return `Root keys of workspace ${workspaceId}:\n\n${blocks.join('\n\n')}\n`;
}

function status(key: RootKeyListing, now: number): string {
  if (key.revokedAt !== null) return `revoked ${iso(key.revokedAt)}`;
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
