import { formatPermission, isGranted, type PermissionTuple, parsePermission } from '@keyplane/core/rules';
import { useQuery } from '@tanstack/react-query';
import { trpc } from './trpc.ts';

/** The session query, shared by the app shell (which loads it first) and everything asking what it may do. */
export const sessionQueryOptions = trpc.dashboard.session.queryOptions(undefined, { retry: false, staleTime: 60_000 });

/**
 * What the signed-in root key may do, judged by the server's own rule (`isGranted`): a control it
 * may not use is disabled with this reason rather than failing on submit.
 */
export function useMissingPermission(required: PermissionTuple | readonly PermissionTuple[]): string | undefined {
  return useMissingPermissionCheck()(required);
}

/** `useMissingPermission` for many things at once, such as each API of a list. */
export function useMissingPermissionCheck(): (
  required: PermissionTuple | readonly PermissionTuple[],
) => string | undefined {
  const session = useQuery(sessionQueryOptions);
  const permissions = session.data?.permissions;
  return (required) => {
    if (!permissions) return undefined;
    const missing = [required].flat().filter((tuple) => !isGranted(permissions, tuple));
    if (missing.length === 0) return undefined;
    return `Your root key lacks ${missing.map(formatPermission).join(' and ')}.`;
  };
}

/**
 * The id of a rate-limit namespace named by id or by name (its page opens by either), as grants
 * name it: the server checks `ratelimit.<id>.<action>`. Found among the namespaces the root key may
 * read; until then, or when it may read none, the reference itself (a `*` grant still matches).
 */
export function useNamespaceGrantId(namespace: string): string {
  const listed = useQuery(
    trpc.ratelimit.listNamespaces.queryOptions({ limit: 100, search: namespace }, { staleTime: 60_000 }),
  );
  const found = listed.data?.data.find((candidate) => candidate.id === namespace || candidate.name === namespace);
  return found?.id ?? namespace;
}

/**
 * For reads the server scopes to the granted instances (analytics): any grant of the action, for
 * one instance or all, is enough. Without one the reason names the wildcard, as the server's 403 does.
 */
export function useMissingAnyGrant(resourceType: PermissionTuple['resourceType'], action: string): string | undefined {
  const session = useQuery(sessionQueryOptions);
  const permissions = session.data?.permissions;
  const granted = permissions?.some((grant) => {
    const tuple = parsePermission(grant);
    return tuple?.resourceType === resourceType && tuple.action === action;
  });
  if (!permissions || granted) return undefined;
  return `Your root key lacks ${formatPermission({ resourceType, resourceId: '*', action })}.`;
}

/** The workspace administrators' grant: signing in, root keys, the workspace itself. */
export const MANAGE_ROOT_KEYS_PERMISSION = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'manage_root_keys',
} as const;
