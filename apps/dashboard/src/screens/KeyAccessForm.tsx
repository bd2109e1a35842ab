import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ChecklistPicker } from '../components/ChecklistPicker.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useDraft } from '../useDraft.ts';

type KeyData = RouterOutputs['keys']['getKey'];

interface KeyAccessFormProps {
  keyData: KeyData;
  onSaved: () => Promise<unknown>;
}

const PAGE_SIZE = 50;

/** The key's roles and its direct permissions, each replaced as a whole (keys.setRoles, keys.setPermissions). */
export function KeyAccessForm({ keyData, onSaved }: KeyAccessFormProps) {
  const roles = keyData.roles ?? [];
  // getKey lists every permission the key holds, its roles' too: what the roles grant is subtracted
  // to find the direct ones.
  const heldRoles = useQueries({
    queries: roles.map((role) => trpc.permissions.getRole.queryOptions({ role })),
  });
  const failedRole = heldRoles.find((role) => role.error);
  const throughRoles = new Set(heldRoles.flatMap((role) => role.data?.permissions.map(({ slug }) => slug) ?? []));

  return (
    <>
      <KeyRolesForm keyId={keyData.keyId} saved={roles} onSaved={onSaved} />
      <h3>Permissions through roles</h3>
      {heldRoles.some((role) => role.isPending) ? <BlockSkeleton height="2rem" /> : null}
      {failedRole?.error ? <ErrorMessage error={failedRole.error} onRetry={() => void failedRole.refetch()} /> : null}
      {throughRoles.size === 0 ? <p className="hint">None.</p> : null}
      <ul className="chips">
        {[...throughRoles].sort().map((slug) => (
          <li key={slug}>
            <code>{slug}</code>
          </li>
        ))}
      </ul>
      {heldRoles.every((role) => role.isSuccess) ? (
        <KeyPermissionsForm
          keyId={keyData.keyId}
          saved={(keyData.permissions ?? []).filter((slug) => !throughRoles.has(slug))}
          onSaved={onSaved}
        />
      ) : null}
    </>
  );
}

interface NamesFormProps {
  keyId: string;
  saved: string[];
  onSaved: () => Promise<unknown>;
}

function KeyRolesForm({ keyId, saved, onSaved }: NamesFormProps) {
  const draft = useDraft({ names: saved });
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim());
  const options = useQuery({
    ...trpc.permissions.listRoles.queryOptions({ limit: PAGE_SIZE, search: debouncedSearch || undefined }),
    select: (page) => ({ values: page.data.map((role) => role.name), hasMore: page.pagination.hasMore }),
  });
  const save = useMutation(
    trpc.keys.setRoles.mutationOptions({
      onSuccess: async () => {
        await onSaved();
        draft.discard();
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ keyId, roles: draft.values.names });
  };

  return (
    <form onSubmit={submit} className="stack">
      <ChecklistPicker
        legend="Roles"
        noun="roles"
        selected={draft.values.names}
        onChange={(names) => draft.edit({ names })}
        search={search}
        onSearchChange={setSearch}
        options={options}
        emptyHint="No roles yet: create them under Roles & permissions."
      />
      <SaveActions
        label="Save roles"
        pending={save.isPending}
        error={save.error}
        edited={draft.edited}
        saved={save.isSuccess}
        onDiscard={draft.discard}
      />
    </form>
  );
}

function KeyPermissionsForm({ keyId, saved, onSaved }: NamesFormProps) {
  const draft = useDraft({ names: saved });
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim());
  const options = useQuery({
    ...trpc.permissions.listPermissions.queryOptions({ limit: PAGE_SIZE, search: debouncedSearch || undefined }),
    select: (page) => ({ values: page.data.map(({ slug }) => slug), hasMore: page.pagination.hasMore }),
  });
  const save = useMutation(
    trpc.keys.setPermissions.mutationOptions({
      onSuccess: async () => {
        await onSaved();
        draft.discard();
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ keyId, permissions: draft.values.names });
  };

  return (
    <form onSubmit={submit} className="stack">
      <ChecklistPicker
        legend="Direct permissions"
        noun="permissions"
        selected={draft.values.names}
        onChange={(names) => draft.edit({ names })}
        search={search}
        onSearchChange={setSearch}
        options={options}
        emptyHint="No permissions yet: create them under Roles & permissions."
      />
      <SaveActions
        label="Save permissions"
        pending={save.isPending}
        error={save.error}
        edited={draft.edited}
        saved={save.isSuccess}
        onDiscard={draft.discard}
      />
    </form>
  );
}
