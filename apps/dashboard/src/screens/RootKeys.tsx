import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Ban, Clock, Copy, Plus } from 'lucide-react';
import { useMemo, useState } from 'react';
import { MANAGE_ROOT_KEYS_PERMISSION } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyableId } from '../components/CopyButton.tsx';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { type BadgeTone, StatusBadge } from '../components/StatusBadge.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { WholeListNote } from '../components/WholeListNote.tsx';
import { formatCount } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';
import { CreateRootKeyDialog } from './CreateRootKeyDialog.tsx';
import { RevokingEndsSession } from './DestructiveNotes.tsx';
import { RootKeyExpiryDialog } from './RootKeyExpiryDialog.tsx';

type RootKey = RouterOutputs['rootKeys']['listRootKeys']['data'][number];

function rootKeyStatus(rootKey: RootKey): { label: string; tone: BadgeTone } {
  if (rootKey.revokedAt !== null) return { label: 'Revoked', tone: 'muted' };
  if (rootKey.expiresAt !== null && rootKey.expiresAt < Date.now()) return { label: 'Expired', tone: 'bad' };
  return { label: 'Active', tone: 'good' };
}

const PAGE_SIZE = 50;

interface RowActions {
  onSetExpiry: (rootKey: RootKey) => void;
  onRevoke: (rootKey: RootKey) => void;
}

function rootKeyColumns({ onSetExpiry, onRevoke }: RowActions) {
  const column = tableColumns<RootKey>();
  return column.columns([
    column.accessor((rootKey) => rootKey.name ?? rootKey.rootKeyId, {
      id: 'name',
      header: 'Name',
      cell: ({ row }) => row.original.name ?? <code>{row.original.rootKeyId}</code>,
    }),
    column.accessor('rootKeyId', {
      header: 'Root key id',
      meta: { phone: 'hidden' },
      cell: ({ row }) => <CopyableId id={row.original.rootKeyId} />,
    }),
    column.accessor('start', { header: 'Key', cell: ({ row }) => <code>{row.original.start}…</code> }),
    column.accessor((rootKey) => rootKey.permissions.length, {
      id: 'permissions',
      header: 'Permissions',
      cell: ({ row }) => (
        <details>
          <summary>{formatCount(row.original.permissions.length, 'permission')}</summary>
          <ul className="plain">
            {row.original.permissions.map((permission) => (
              <li key={permission}>
                <code>{permission}</code>
              </li>
            ))}
          </ul>
        </details>
      ),
    }),
    column.accessor('createdAt', {
      header: 'Created',
      cell: ({ row }) => <RelativeTime epochMs={row.original.createdAt} />,
    }),
    column.accessor((rootKey) => rootKey.lastUsedAt ?? undefined, {
      id: 'lastUsedAt',
      header: 'Last used',
      sortUndefined: 'last',
      cell: ({ row }) => <RelativeTime epochMs={row.original.lastUsedAt} none="Never" />,
    }),
    column.accessor((rootKey) => rootKey.expiresAt ?? undefined, {
      id: 'expiresAt',
      header: 'Expires',
      sortUndefined: 'last',
      cell: ({ row }) => <RelativeTime epochMs={row.original.expiresAt} none="Never" />,
    }),
    column.accessor((rootKey) => rootKeyStatus(rootKey).label, {
      id: 'status',
      header: 'Status',
      meta: { phone: 'badge' },
      cell: ({ row }) => <StatusBadge {...rootKeyStatus(row.original)} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      meta: { phone: 'menu', width: '3rem' },
      cell: ({ row }) => {
        const rootKey = row.original;
        const label = rootKey.name ?? rootKey.rootKeyId;
        return rootKey.revokedAt === null ? (
          <RowMenu
            label={label}
            actions={[
              {
                label: 'Copy root key id',
                icon: Copy,
                onSelect: () => void navigator.clipboard.writeText(rootKey.rootKeyId),
              },
              {
                label: 'Set expiry',
                icon: Clock,
                onSelect: () => onSetExpiry(rootKey),
                permission: MANAGE_ROOT_KEYS_PERMISSION,
              },
              'separator',
              {
                label: 'Revoke',
                icon: Ban,
                danger: true,
                onSelect: () => onRevoke(rootKey),
                permission: MANAGE_ROOT_KEYS_PERMISSION,
              },
            ]}
          />
        ) : null;
      },
    }),
  ]);
}

/** Whether the search text is in the root key's name, id, start or one of its permissions. */
function matchesSearch(rootKey: RootKey, search: string): boolean {
  const needle = search.toLowerCase();
  return [rootKey.name ?? '', rootKey.rootKeyId, rootKey.start, ...rootKey.permissions].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

export function RootKeys() {
  const queryClient = useQueryClient();
  const table = useTableUrlState({ id: 'createdAt', desc: true });
  const rootKeys = useWholeList(trpc.rootKeys.listRootKeys, {});
  const [creating, setCreating] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<RootKey | null>(null);
  const [settingExpiry, setSettingExpiry] = useState<RootKey | null>(null);
  const columns = useMemo(() => rootKeyColumns({ onSetExpiry: setSettingExpiry, onRevoke: setRevoking }), []);
  // A workspace has tens of root keys, all loaded page by page: the search runs here.
  const { appliedSearch } = table;
  const allRootKeys = rootKeys.data?.rows;
  const shown = useMemo(
    () => (appliedSearch ? allRootKeys?.filter((rootKey) => matchesSearch(rootKey, appliedSearch)) : allRootKeys),
    [allRootKeys, appliedSearch],
  );

  useDocumentTitle('Root keys');
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.rootKeys.pathKey() });
  const revoke = useMutation(
    trpc.rootKeys.revokeRootKey.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        return invalidate();
      },
    }),
  );

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Root keys</h1>
        <PermittedButton permission={MANAGE_ROOT_KEYS_PERMISSION} className="primary" onClick={() => setCreating(true)}>
          <Plus size={16} aria-hidden="true" />
          Create root key
        </PermittedButton>
      </div>
      <p className="page-intro">
        Root keys are your backend’s credentials: they call the Keyplane API for this workspace (create keys, verify
        them) and sign in here, each with only the permissions listed. Your customers never see them.
      </p>

      {newKey ? <SecretPanel title="New root key" secret={newKey} onDismiss={() => setNewKey(null)} /> : null}
      <TableSearch
        id="root-key-search"
        label="Search root keys"
        placeholder="Name, id, start or permission"
        value={table.search}
        onChange={table.setSearch}
      />
      <WholeListNote complete={rootKeys.data?.complete} noun="root keys" />
      <DataTable
        caption="Root keys of this workspace"
        columns={columns}
        query={rootKeys}
        rows={shown}
        loadingLabel="root keys"
        noun={{ one: 'root key' }}
        emptyMessage={appliedSearch ? 'No root key matches the search.' : 'No root keys yet.'}
        rowKey={(rootKey) => rootKey.rootKeyId}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
      />

      <CreateRootKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setNewKey(key);
          void invalidate();
        }}
      />
      {settingExpiry ? (
        <RootKeyExpiryDialog
          rootKey={settingExpiry}
          onClose={() => setSettingExpiry(null)}
          onSaved={() => {
            setSettingExpiry(null);
            void invalidate();
          }}
        />
      ) : null}
      <ConfirmDialog
        title="Revoke root key"
        open={revoking !== null}
        confirmLabel="Revoke root key"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate({ rootKeyId: revoking.rootKeyId })}
        onClose={() => {
          setRevoking(null);
          revoke.reset();
        }}
      >
        <p>
          Revoke <strong>{revoking?.name ?? revoking?.rootKeyId}</strong>? Every call made with it fails from the next
          request on. This cannot be undone.
        </p>
        {revoking ? <RevokingEndsSession rootKeyId={revoking.rootKeyId} /> : null}
      </ConfirmDialog>
    </>
  );
}
