import { isGranted } from '@keyplane/core/rules';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { sessionQueryOptions, useMissingAnyGrant } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton, LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { KeyStatusBadge } from '../components/StatusBadge.tsx';
import { TimeRangeControls, useTimeWindow } from '../components/TimeRangeControls.tsx';
import { ChartPanel, outcomeSummary, useVerificationSeries } from '../components/UsageCharts.tsx';
import { formatCount, formatMeta, formatTime } from '../format.ts';
import { Link, navigate, useLeaveGuard } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useDraft } from '../useDraft.ts';

export function IdentityDetail({ identity }: { identity: string }) {
  const queryClient = useQueryClient();
  const found = useQuery(trpc.identities.getIdentity.queryOptions({ identity }));
  useDocumentTitle(found.data?.externalId ?? identity, 'Identities');
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(
    trpc.identities.deleteIdentity.mutationOptions({
      onSuccess: () => {
        // Dropped, not only marked stale: the list would otherwise show the deleted identity until it reloads.
        queryClient.removeQueries({ queryKey: trpc.identities.pathKey() });
        navigate('/identities');
      },
    }),
  );

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/identities">Identities</Link> / <code>{identity}</code>
      </p>
      <div className="page-header">
        <h1 tabIndex={-1}>{found.data?.externalId ?? 'Identity'}</h1>
        <PermittedButton
          permission={{ resourceType: 'identity', resourceId: '*', action: 'delete_identity' }}
          className="danger"
          disabled={!found.data}
          onClick={() => setDeleting(true)}
        >
          Delete identity
        </PermittedButton>
      </div>
      {found.error ? <ErrorMessage error={found.error} onRetry={() => void found.refetch()} /> : null}
      {found.isPending ? <BlockSkeleton height="20rem" /> : null}
      {found.data ? (
        <>
          <IdentityKeys externalId={found.data.externalId} />
          <IdentityUsage identityId={found.data.id} />
          <IdentityForm identity={found.data} />
        </>
      ) : null}
      <ConfirmDialog
        title="Delete identity"
        open={deleting}
        confirmLabel="Delete identity"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ identity })}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>
          Delete <strong>{found.data?.externalId}</strong>? Its keys keep working, without its meta and shared limits.
        </p>
      </ConfirmDialog>
    </>
  );
}

function IdentityForm({ identity }: { identity: RouterOutputs['identities']['getIdentity'] }) {
  const queryClient = useQueryClient();
  const draft = useDraft({
    meta: formatMeta(identity.meta),
    ratelimits: toRatelimitRows(identity.ratelimits),
  });
  const metaCheck = useMetaCheck();
  useLeaveGuard(draft.edited);
  const update = useMutation(
    trpc.identities.updateIdentity.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() });
        draft.discard();
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const meta = metaCheck.check(draft.values.meta);
    if (meta === undefined) return;
    update.mutate({ identity: identity.id, meta, ratelimits: draft.values.ratelimits });
  };

  return (
    <form onSubmit={submit} className="panel stack">
      <p>
        Identity id <code>{identity.id}</code>
      </p>
      <MetaField
        id="identity-meta"
        value={draft.values.meta}
        onChange={(meta) => draft.edit({ meta })}
        problem={metaCheck.problem}
      />
      <RatelimitsEditor rows={draft.values.ratelimits} onChange={(ratelimits) => draft.edit({ ratelimits })} />
      <SaveActions
        label="Save identity"
        mutation={update}
        draft={draft}
        permission={{ resourceType: 'identity', resourceId: '*', action: 'update_identity' }}
      />
    </form>
  );
}

/**
 * The identity's keys in every API the root key may list keys of (one `apis.listKeys` by external
 * id per API: a workspace has a handful of APIs).
 */
function IdentityKeys({ externalId }: { externalId: string }) {
  const id = useId();
  const session = useQuery(sessionQueryOptions);
  // Without any read_api grant there is no API to list keys of: say so rather than ask for a 403.
  const apisMissing = useMissingAnyGrant('api', 'read_api');
  const apis = useQuery({ ...trpc.apis.listApis.queryOptions({ limit: 100 }), enabled: apisMissing === undefined });
  const permissions = session.data?.permissions ?? [];
  const listable = (apis.data?.data ?? []).filter((api) =>
    isGranted(permissions, { resourceType: 'api', resourceId: api.id, action: 'read_key' }),
  );
  const lists = useQueries({
    queries: listable.map((api) => trpc.apis.listKeys.queryOptions({ apiId: api.id, externalId, limit: 100 })),
  });
  const keys = listable.flatMap((api, index) => (lists[index]?.data?.data ?? []).map((key) => ({ api, key })));
  const failed = [apis, ...lists].find((query) => query.error);
  const loading = (apisMissing === undefined && apis.isPending) || lists.some((query) => query.isPending);
  const unlisted = (apis.data?.data.length ?? 0) - listable.length;
  const more = lists.some((query) => query.data?.pagination.hasMore);

  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>Keys</h2>
      {loading ? <LoadingStatus label="keys" /> : <p>{formatCount(keys.length, 'key')}</p>}
      {failed?.error ? <ErrorMessage error={failed.error} onRetry={() => void failed.refetch()} /> : null}
      {apisMissing ? <p className="hint">Not listed: {apisMissing}</p> : null}
      {unlisted > 0 ? (
        <p className="hint">
          Not listed: keys in {formatCount(unlisted, 'other API')}, whose keys your root key may not read.
        </p>
      ) : null}
      {more ? <p className="hint">Showing the first 100 keys of each API.</p> : null}
      {!loading && !apisMissing && keys.length === 0 ? <p>No keys belong to this identity.</p> : null}
      {loading || keys.length > 0 ? (
        <div className="table-wrap cards">
          <table>
            <caption className="visually-hidden">Keys of {externalId}</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">API</th>
                <th scope="col">Status</th>
                <th scope="col">Last used</th>
              </tr>
            </thead>
            <tbody>
              {loading ? (
                <TableSkeletonRows columns={4} rows={3} />
              ) : (
                keys.map(({ api, key }) => (
                  <tr key={key.keyId}>
                    <th scope="row">
                      <Link to={`/apis/${api.id}/keys/${key.keyId}`}>{key.name ?? key.keyId}</Link>{' '}
                      <code>{key.start}…</code>
                    </th>
                    <td data-label="API">
                      <Link to={`/apis/${api.id}`}>{api.name}</Link>
                    </td>
                    <td data-label="Status">
                      <KeyStatusBadge keyData={key} />
                    </td>
                    <td data-label="Last used">{key.lastUsedAt ? formatTime(key.lastUsedAt) : 'Never'}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** The identity's verifications over time: those of its keys, as recorded with the identity. */
function IdentityUsage({ identityId }: { identityId: string }) {
  const timeWindow = useTimeWindow('day');
  const missing = useMissingAnyGrant('api', 'read_analytics');
  const verifications = useVerificationSeries(timeWindow, { identityId }, missing);
  return (
    <ChartPanel
      title="Usage"
      query={verifications.query}
      timeWindow={timeWindow}
      series={verifications.outcomes}
      summary={outcomeSummary(verifications.outcomes)}
      missing={missing}
      controls={<TimeRangeControls timeWindow={timeWindow} />}
    />
  );
}
