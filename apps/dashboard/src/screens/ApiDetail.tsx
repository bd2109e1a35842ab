import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyableId } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { Sparkline } from '../components/Sparkline.tsx';
import { Tabs } from '../components/Tabs.tsx';
import { useTimeWindow } from '../components/TimeRangeControls.tsx';
import { outcomeSummary, useVerificationSeries } from '../components/UsageCharts.tsx';
import { formatNumber } from '../format.ts';
import { Link, navigate, useSearch } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { seriesTotal } from '../usageSeries.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { ApiKeys } from './ApiKeys.tsx';
import { ApiPortal } from './ApiPortal.tsx';
import { ApiSettingsForm } from './ApiSettingsForm.tsx';
import { KeysDeletedWithApi } from './DestructiveNotes.tsx';

export function ApiDetail({ apiId }: { apiId: string }) {
  const queryClient = useQueryClient();
  const api = useQuery(trpc.apis.getApi.queryOptions({ apiId }));
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(
    trpc.apis.deleteApi.mutationOptions({
      onSuccess: () => {
        queryClient.removeQueries({ queryKey: trpc.apis.getApi.queryKey({ apiId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.apis.listApis.pathKey() });
        navigate('/apis');
      },
    }),
  );

  const tab = new URLSearchParams(useSearch()).get('tab');
  useDocumentTitle(tab === 'settings' ? 'Settings' : tab === 'portal' ? 'Portal' : 'Keys', api.data?.name ?? apiId);

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/apis">APIs</Link> / <code>{apiId}</code>
      </p>
      <div className="page-header">
        <div className="title-with-status">
          <h1 tabIndex={-1}>{api.data?.name ?? 'API'}</h1>
          <CopyableId id={apiId} />
        </div>
        <PermittedButton
          permission={{ resourceType: 'api', resourceId: apiId, action: 'delete_api' }}
          className="danger"
          onClick={() => setDeleting(true)}
          disabled={!api.data}
        >
          <Trash2 size={16} aria-hidden="true" />
          Delete API
        </PermittedButton>
      </div>
      {api.error ? <ErrorMessage error={api.error} onRetry={() => void api.refetch()} /> : null}
      <ApiOverview apiId={apiId} />
      <Tabs
        label="API"
        tabs={[
          { name: 'Keys', content: <ApiKeys apiId={apiId} /> },
          {
            name: 'Settings',
            content: (
              <section aria-labelledby="api-settings-title" className="panel">
                <h2 id="api-settings-title">Settings</h2>
                {api.isPending ? <BlockSkeleton height="18rem" /> : null}
                {api.data ? <ApiSettingsForm api={api.data} /> : null}
              </section>
            ),
          },
          { name: 'Portal', content: <ApiPortal apiId={apiId} /> },
        ]}
      />
      <ConfirmDialog
        title="Delete API"
        open={deleting}
        confirmLabel="Delete API"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ apiId })}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
        typeToConfirm={api.data?.name}
      >
        <p>
          Delete <strong>{api.data?.name}</strong>? Its keys stop verifying at once. An API with delete protection must
          have it turned off first.
        </p>
        <KeysDeletedWithApi apiId={apiId} />
      </ConfirmDialog>
    </>
  );
}

/** The API at a glance: how many keys it has and its verifications over the last 24 hours. */
function ApiOverview({ apiId }: { apiId: string }) {
  const keysMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_key' });
  const usageMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_analytics' });
  // One key per page: only the total is wanted.
  const keys = useQuery({
    ...trpc.apis.listKeysPage.queryOptions({ apiId, pageSize: 1 }),
    enabled: keysMissing === undefined,
  });
  const timeWindow = useTimeWindow('day');
  const usage = useVerificationSeries(timeWindow, { apiId }, usageMissing);
  const perBucket = timeWindow.buckets.map((_, index) =>
    usage.outcomes.reduce((sum, line) => sum + (line.values[index] ?? 0), 0),
  );
  const summary =
    seriesTotal(usage.outcomes) === 0
      ? 'No verifications in the last 24 hours'
      : `${outcomeSummary(usage.outcomes)} in the last 24 hours`;

  return (
    <div className="api-overview">
      <p className="api-key-count" data-testid="key-count">
        {keys.data ? (
          <>
            <strong>{formatNumber(keys.data.total)}</strong> {keys.data.total === 1 ? 'key' : 'keys'}
          </>
        ) : null}
        {keysMissing ? <span className="hint">Key count not shown: {keysMissing}</span> : null}
      </p>
      {usageMissing ? (
        <p className="hint">Usage not shown: {usageMissing}</p>
      ) : usage.query.data ? (
        <div className="api-usage">
          <Sparkline
            label={`Verifications over the last 24 hours: ${summary}`}
            buckets={timeWindow.buckets}
            values={perBucket}
            formatBucket={timeWindow.formatBucket}
          />
          <p className="hint">
            {summary}. <Link to={`/usage?api=${apiId}`}>See all usage of this API</Link>
          </p>
        </div>
      ) : null}
    </div>
  );
}
