import type { PermissionTuple } from '@keyplane/core/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Pencil, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { useMissingPermission, useNamespaceGrantId } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { TimeRangeControls, useTimeWindow } from '../components/TimeRangeControls.tsx';
import { ChartPanel, decisionSummary, useDecisionSeries } from '../components/UsageCharts.tsx';
import { formatDuration, formatNumber } from '../format.ts';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

type Override = RouterOutputs['ratelimit']['listOverrides']['data'][number];

/**
 * A namespace: its decisions over time, and its overrides (per-identifier or `*` pattern limits
 * that replace the caller's).
 */
export function NamespaceDetail({ namespace }: { namespace: string }) {
  const queryClient = useQueryClient();
  const overridesTitle = useId();
  const pages = useCursorPages();
  const overrides = useQuery(trpc.ratelimit.listOverrides.queryOptions({ namespace, limit: 50, cursor: pages.cursor }));
  // null: closed; an override: edit it; 'new': create one.
  const [editing, setEditing] = useState<Override | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Override | null>(null);
  // The screen opens by the namespace's id or its name; grants name its id.
  const namespaceId = useNamespaceGrantId(namespace);
  const setPermission = { resourceType: 'ratelimit', resourceId: namespaceId, action: 'set_override' } as const;
  const deletePermission = { resourceType: 'ratelimit', resourceId: namespaceId, action: 'delete_override' } as const;
  const remove = useMutation(
    trpc.ratelimit.deleteOverride.mutationOptions({
      onSuccess: () => {
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.ratelimit.listOverrides.pathKey() });
      },
    }),
  );

  // The same list useNamespaceGrantId looked the id up in (cached), for the name.
  const listed = useQuery(
    trpc.ratelimit.listNamespaces.queryOptions({ limit: 100, search: namespace }, { staleTime: 60_000 }),
  );
  const found = listed.data?.data.find((candidate) => candidate.id === namespaceId);
  useDocumentTitle(found?.name ?? namespace, 'Rate limits');

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/ratelimits">Rate limits</Link> / <code>{namespace}</code>
      </p>
      <h1 tabIndex={-1}>{found?.name ?? namespace}</h1>
      {found ? (
        <p className="hint">
          Namespace id <code>{found.id}</code>
        </p>
      ) : null}
      {found ? <NamespaceDecisions namespaceId={found.id} /> : null}
      <section className="panel" aria-labelledby={overridesTitle}>
        <div className="page-header">
          <h2 id={overridesTitle}>Overrides</h2>
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
              <td>{formatNumber(override.limit)}</td>
              <td>{formatDuration(override.duration)}</td>
              <td data-phone="menu">
                <RowMenu
                  label={`override ${override.identifier}`}
                  actions={[
                    {
                      label: 'Edit override',
                      icon: Pencil,
                      permission: setPermission,
                      onSelect: () => setEditing(override),
                    },
                    'separator',
                    {
                      label: 'Delete override',
                      icon: Trash2,
                      danger: true,
                      permission: deletePermission,
                      onSelect: () => setDeleting(override),
                    },
                  ]}
                />
              </td>
            </>
          )}
        />
        <Pager pages={pages} nextCursor={overrides.data?.pagination.cursor} label="Overrides" />
      </section>
      {editing ? (
        <OverrideDialog
          namespace={namespace}
          permission={setPermission}
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

/** How the namespace's limits decided over time: passed or limited. */
function NamespaceDecisions({ namespaceId }: { namespaceId: string }) {
  const timeWindow = useTimeWindow('day');
  const missing = useMissingPermission({
    resourceType: 'ratelimit',
    resourceId: namespaceId,
    action: 'read_analytics',
  });
  const { query, decisions } = useDecisionSeries(timeWindow, namespaceId, missing);
  return (
    <ChartPanel
      title="Decisions"
      query={query}
      timeWindow={timeWindow}
      series={decisions}
      summary={decisionSummary(decisions)}
      missing={missing}
      controls={<TimeRangeControls timeWindow={timeWindow} />}
    />
  );
}

interface OverrideDialogProps {
  namespace: string;
  /** What saving needs: without it the submit is disabled with the reason. */
  permission: PermissionTuple;
  override?: Override;
  onClose: () => void;
}

/** setOverride is an upsert by identifier, so creating and editing are the same call. */
function OverrideDialog({ namespace, permission, override, onClose }: OverrideDialogProps) {
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
      permission={permission}
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
