import type { PermissionTuple } from '@keyplane/core/rules';
import {
  type UseMutationOptions,
  type UseQueryResult,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { ChecklistPicker } from '../components/ChecklistPicker.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useDraft } from '../useDraft.ts';

interface KeyAccessFormProps {
  keyId: string;
  onSaved: () => Promise<unknown>;
}

const PAGE_SIZE = 50;

/** The key's roles and its direct permissions, each replaced as a whole (keys.setRoles, keys.setPermissions). */
export function KeyAccessForm({ keyId, onSaved }: KeyAccessFormProps) {
  const queryClient = useQueryClient();
  const access = useQuery(trpc.keys.getKeyAccess.queryOptions({ keyId }));
  const onAccessSaved = () =>
    Promise.all([onSaved(), queryClient.invalidateQueries({ queryKey: trpc.keys.getKeyAccess.queryKey({ keyId }) })]);

  if (access.error) return <ErrorMessage error={access.error} onRetry={() => void access.refetch()} />;
  if (access.isPending) return <BlockSkeleton height="16rem" />;
  return (
    <>
      <GrantsForm
        legend="Roles"
        noun="roles"
        saved={access.data.roles}
        useOptions={useRoleNames}
        readPermission={{ resourceType: 'rbac', resourceId: '*', action: 'read_role' }}
        mutationOptions={trpc.keys.setRoles.mutationOptions()}
        toInput={(roles) => ({ keyId, roles })}
        onSaved={onAccessSaved}
      />
      <PermissionsThroughRoles roles={access.data.roles} />
      <GrantsForm
        legend="Direct permissions"
        noun="permissions"
        saved={access.data.directPermissions}
        useOptions={usePermissionSlugs}
        readPermission={{ resourceType: 'rbac', resourceId: '*', action: 'read_permission' }}
        mutationOptions={trpc.keys.setPermissions.mutationOptions()}
        toInput={(permissions) => ({ keyId, permissions })}
        onSaved={onAccessSaved}
      />
    </>
  );
}

/** Read-only: what the key's roles grant, changed by editing the roles themselves. */
function PermissionsThroughRoles({ roles }: { roles: string[] }) {
  const heldRoles = useQueries({
    queries: roles.map((role) => trpc.permissions.getRole.queryOptions({ role })),
  });
  const failedRole = heldRoles.find((role) => role.error);
  const slugs = new Set(heldRoles.flatMap((role) => role.data?.permissions.map(({ slug }) => slug) ?? []));

  return (
    <>
      <h3>Permissions through roles</h3>
      {heldRoles.some((role) => role.isPending) ? <BlockSkeleton height="2rem" /> : null}
      {failedRole?.error ? <ErrorMessage error={failedRole.error} onRetry={() => void failedRole.refetch()} /> : null}
      {slugs.size === 0 ? <p className="hint">None.</p> : null}
      <ul className="chips">
        {[...slugs].sort().map((slug) => (
          <li key={slug}>
            <code>{slug}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

type Names = UseQueryResult<{ values: string[]; hasMore: boolean }>;

function useRoleNames(search: string | undefined, enabled: boolean): Names {
  return useQuery({
    ...trpc.permissions.listRoles.queryOptions({ limit: PAGE_SIZE, search }),
    enabled,
    select: (page) => ({ values: page.data.map((role) => role.name), hasMore: page.pagination.hasMore }),
  });
}

function usePermissionSlugs(search: string | undefined, enabled: boolean): Names {
  return useQuery({
    ...trpc.permissions.listPermissions.queryOptions({ limit: PAGE_SIZE, search }),
    enabled,
    select: (page) => ({ values: page.data.map(({ slug }) => slug), hasMore: page.pagination.hasMore }),
  });
}

interface GrantsFormProps<TOutput, TInput> {
  legend: string;
  /** "roles" or "permissions": used in "Search roles", "Save roles" and the picker's status lines. */
  noun: string;
  /** The names the key holds now. */
  saved: string[];
  /** A hook (the same one for the form's life): the names to pick from that match a search. */
  useOptions: (search: string | undefined, enabled: boolean) => Names;
  /** What listing the names to pick from needs: without it the picker is not shown, and says why. */
  readPermission: PermissionTuple;
  mutationOptions: UseMutationOptions<TOutput, Error, TInput>;
  toInput: (names: string[]) => TInput;
  onSaved: () => Promise<unknown>;
}

/** Picks a set of names (roles or permission slugs) for the key and replaces its set on save. */
function GrantsForm<TOutput, TInput>({
  legend,
  noun,
  saved,
  useOptions,
  readPermission,
  mutationOptions,
  toInput,
  onSaved,
}: GrantsFormProps<TOutput, TInput>) {
  const readMissing = useMissingPermission(readPermission);
  const draft = useDraft({ names: saved });
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim());
  const options = useOptions(debouncedSearch || undefined, readMissing === undefined);
  const save = useMutation({
    ...mutationOptions,
    onSuccess: async () => {
      await onSaved();
      draft.discard();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(toInput(draft.values.names));
  };

  if (readMissing) {
    return (
      <p className="hint">
        {legend} not shown: {readMissing}
      </p>
    );
  }
  return (
    <form onSubmit={submit} className="stack">
      <ChecklistPicker
        legend={legend}
        noun={noun}
        selected={draft.values.names}
        onChange={(names) => draft.edit({ names })}
        search={search}
        onSearchChange={setSearch}
        options={options}
        emptyHint={`No ${noun} yet: create them under Roles & permissions.`}
      />
      <SaveActions label={`Save ${noun}`} mutation={save} draft={draft} />
    </form>
  );
}
