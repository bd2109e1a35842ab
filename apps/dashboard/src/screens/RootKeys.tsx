import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { type BadgeTone, StatusBadge } from '../components/StatusBadge.tsx';
import { formatCount, formatTime } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { CreateRootKeyDialog } from './CreateRootKeyDialog.tsx';
import { RootKeyExpiryDialog } from './RootKeyExpiryDialog.tsx';

type RootKey = RouterOutputs['rootKeys']['listRootKeys']['rootKeys'][number];

function rootKeyStatus(rootKey: RootKey): { label: string; tone: BadgeTone } {
  if (rootKey.revokedAt !== null) return { label: 'Revoked', tone: 'muted' };
  if (rootKey.expiresAt !== null && rootKey.expiresAt < Date.now()) return { label: 'Expired', tone: 'bad' };
  return { label: 'Active', tone: 'good' };
}

export function RootKeys() {
  const queryClient = useQueryClient();
  const rootKeys = useQuery(trpc.rootKeys.listRootKeys.queryOptions());
  const [creating, setCreating] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<RootKey | null>(null);
  const [settingExpiry, setSettingExpiry] = useState<RootKey | null>(null);

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
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create root key
        </button>
      </div>
      <p className="hint">
        Root keys call the Keyplane API for this workspace. Each holds only the permissions listed.
      </p>

      {newKey ? <SecretPanel title="New root key" secret={newKey} onDismiss={() => setNewKey(null)} /> : null}
      <DataTable
        caption="Root keys of this workspace"
        columns={['Name', 'Key', 'Permissions', 'Created', 'Last used', 'Expires', 'Status', 'Actions']}
        query={rootKeys}
        rows={rootKeys.data?.rootKeys}
        loadingLabel="root keys"
        emptyMessage="No root keys yet."
        rowKey={(rootKey) => rootKey.rootKeyId}
        renderCells={(rootKey) => {
          const label = rootKey.name ?? rootKey.rootKeyId;
          const live = rootKey.revokedAt === null;
          return (
            <>
              <th scope="row">{label}</th>
              <td>
                <code>{rootKey.start}…</code>
              </td>
              <td>
                <details>
                  <summary>{formatCount(rootKey.permissions.length, 'permission')}</summary>
                  <ul className="plain">
                    {rootKey.permissions.map((permission) => (
                      <li key={permission}>
                        <code>{permission}</code>
                      </li>
                    ))}
                  </ul>
                </details>
              </td>
              <td>{formatTime(rootKey.createdAt)}</td>
              <td>{formatTime(rootKey.lastUsedAt)}</td>
              <td>{formatTime(rootKey.expiresAt)}</td>
              <td>
                <StatusBadge {...rootKeyStatus(rootKey)} />
              </td>
              <td>
                {live ? (
                  <div className="row-actions">
                    <button type="button" onClick={() => setSettingExpiry(rootKey)}>
                      Set expiry<span className="visually-hidden"> of {label}</span>
                    </button>
                    <button type="button" className="danger" onClick={() => setRevoking(rootKey)}>
                      Revoke<span className="visually-hidden"> {label}</span>
                    </button>
                  </div>
                ) : null}
              </td>
            </>
          );
        }}
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
      </ConfirmDialog>
    </>
  );
}
