import { formatPermission, isGranted, type PermissionTuple, parsePermission } from '@keyplane/core/rules';
import { useQuery } from '@tanstack/react-query';
import { type RouterOutputs, trpc } from './trpc.ts';

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
  const holder = holderOf(session.data);
  return (required) => {
    if (!permissions) return undefined;
    const missing = [required].flat().filter((tuple) => !isGranted(permissions, tuple));
    if (missing.length === 0) return undefined;
    return `${holder} lacks ${missing.map(formatPermission).join(' and ')}.`;
  };
}

type Session = RouterOutputs['dashboard']['session'];

/** Who lacks a permission, in a reason: the root key signed in with, or a person's role. */
function holderOf(session: Session | undefined): string {
  return session?.person ? `Your role (${session.person.role})` : 'Your root key';
}

/**
 * A session that may change nothing (a viewer's): every permission it holds is a read. Such a
 * session is offered no change at all: controls for changes are left out rather than disabled, as
 * there is nothing it could do with them (docs/dashboard.md, What it shows to whom).
 */
export function isReadOnly(permissions: readonly string[]): boolean {
  return permissions.every((grant) => parsePermission(grant)?.action.startsWith('read_') ?? false);
}

/** Whether the signed-in session may change nothing (see isReadOnly); false while it loads. */
export function useReadOnly(): boolean {
  const session = useQuery(sessionQueryOptions);
  return session.data ? isReadOnly(session.data.permissions) : false;
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
  return `${holderOf(session.data)} lacks ${formatPermission({ resourceType, resourceId: '*', action })}.`;
}

/** The workspace administrators' grant: signing in, root keys, the workspace itself. */
export const MANAGE_ROOT_KEYS_PERMISSION = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'manage_root_keys',
} as const;

/** Managing the workspace's people: the Members screen's changes (and reading it, for a root key). */
export const MANAGE_MEMBERS_PERMISSION = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'manage_members',
} as const;

/** Reading the workspace's people (a viewer may): the Members screen's lists. */
export const READ_MEMBERS_PERMISSION = { resourceType: 'workspace', resourceId: '*', action: 'read_members' } as const;

/** Reading the workspace's root keys (a viewer may): the Root keys screen's list. */
export const READ_ROOT_KEYS_PERMISSION = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'read_root_keys',
} as const;
