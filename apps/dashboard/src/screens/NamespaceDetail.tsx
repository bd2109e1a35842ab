import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { formatDuration } from '../format.ts';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Override = RouterOutputs['ratelimit']['listOverrides']['data'][number];

/** A namespace's overrides: per-identifier (or `*` pattern) limits that replace the caller's. */
export function NamespaceDetail({ namespace }: { namespace: string }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const overrides = useQuery(trpc.ratelimit.listOverrides.queryOptions({ namespace, limit: 50, cursor: pages.cursor }));
  // null: closed; an override: edit it; 'new': create one.
  const [editing, setEditing] = useState<Override | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Override | null>(null);
  // The screen is reached by the namespace's id (the list links it), which grants name.
  const setPermission = { resourceType: 'ratelimit', resourceId: namespace, action: 'set_override' } as const;
  const deletePermission = { resourceType: 'ratelimit', resourceId: namespace, action: 'delete_override' } as const;
  const remove = useMutation(
    trpc.ratelimit.deleteOverride.mutationOptions({
      onSuccess: () => {
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.ratelimit.listOverrides.pathKey() });
      },
    }),
  );

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/ratelimits">Rate limits</Link> / <code>{namespace}</code>
      </p>
      <div className="page-header">
        <h1 tabIndex={-1}>Overrides</h1>
        <PermittedButton permission={setPermission} className="primary" onClick={() => setEditing('new')}>
          Set override
        </PermittedButton>
      </div>
      <DataTable
        caption={`Overrides of namespace ${namespace}`}
        columns={['Identifier', 'Limit', 'Window', 'Actions']}
        query={overrides}
        rows={overrides.data?.data}
        loadingLabel="overrides"
        emptyMessage="No overrides. Set one to give an identifier its own limit."
        rowKey={(override) => override.overrideId}
        renderCells={(override) => (
          <>
            <th scope="row">
              <code>{override.identifier}</code>
            </th>
            <td>{override.limit}</td>
            <td>{formatDuration(override.duration)}</td>
            <td>
              <div className="row-actions">
                <PermittedButton permission={setPermission} onClick={() => setEditing(override)}>
                  Edit<span className="visually-hidden"> override {override.identifier}</span>
                </PermittedButton>
                <PermittedButton permission={deletePermission} className="danger" onClick={() => setDeleting(override)}>
                  Delete<span className="visually-hidden"> override {override.identifier}</span>
                </PermittedButton>
              </div>
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={overrides.data?.pagination.cursor} label="Overrides" />
      {editing ? (
        <OverrideDialog
          namespace={namespace}
          override={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <ConfirmDialog
        title="Delete override"
        open={deleting !== null}
        confirmLabel="Delete override"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate({ namespace, identifier: deleting.identifier })}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Delete the override for <code>{deleting?.identifier}</code>? Callers get the limit they ask for again.
        </p>
      </ConfirmDialog>
    </>
  );
}

interface OverrideDialogProps {
  namespace: string;
  override?: Override;
  onClose: () => void;
}

/** setOverride is an upsert by identifier, so creating and editing are the same call. */
function OverrideDialog({ namespace, override, onClose }: OverrideDialogProps) {
  const queryClient = useQueryClient();
  const [identifier, setIdentifier] = useState(override?.identifier ?? '');
  const [limit, setLimit] = useState(String(override?.limit ?? 10));
  const [seconds, setSeconds] = useState(String((override?.duration ?? 60_000) / 1000));
  const save = useMutation(
    trpc.ratelimit.setOverride.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.ratelimit.listOverrides.pathKey() });
        onClose();
      },
    }),
  );

  const submit = () => {
    save.mutate({ namespace, identifier: identifier.trim(), limit: Number(limit), duration: Number(seconds) * 1000 });
  };

  return (
    <FormDialog
      title={override ? 'Edit override' : 'Set override'}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Save override"
      mutation={save}
    >
      <div className="field">
        <label htmlFor="override-identifier">Identifier</label>
        <input
          id="override-identifier"
          required
          maxLength={512}
          readOnly={override !== undefined}
          value={identifier}
          onChange={(event) => setIdentifier(event.target.value)}
          aria-describedby="override-identifier-hint"
        />
        <p id="override-identifier-hint" className="hint">
          Exact, or a pattern where * matches anything (user_*).
        </p>
      </div>
      <div className="field">
        <label htmlFor="override-limit">Limit</label>
        <input
          id="override-limit"
          type="number"
          min={0}
          required
          value={limit}
          onChange={(event) => setLimit(event.target.value)}
          aria-describedby="override-limit-hint"
        />
        <p id="override-limit-hint" className="hint">
          0 blocks every request.
        </p>
      </div>
      <div className="field">
        <label htmlFor="override-window">Window (seconds)</label>
        <input
          id="override-window"
          type="number"
          min={1}
          max={2_592_000}
          required
          value={seconds}
          onChange={(event) => setSeconds(event.target.value)}
        />
      </div>
    </FormDialog>
  );
}
