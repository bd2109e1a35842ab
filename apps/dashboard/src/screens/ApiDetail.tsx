import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { ApiKeys } from './ApiKeys.tsx';
import { ApiSettingsForm } from './ApiSettingsForm.tsx';

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

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/apis">APIs</Link> / <code>{apiId}</code>
      </p>
      <div className="page-header">
        <h1 tabIndex={-1}>{api.data?.name ?? 'API'}</h1>
        <PermittedButton
          permission={{ resourceType: 'api', resourceId: apiId, action: 'delete_api' }}
          className="danger"
          onClick={() => setDeleting(true)}
          disabled={!api.data}
        >
          Delete API
        </PermittedButton>
      </div>
      {api.error ? <ErrorMessage error={api.error} onRetry={() => void api.refetch()} /> : null}
      <section aria-labelledby="api-settings-title" className="panel">
        <h2 id="api-settings-title">Settings</h2>
        {api.isPending ? <BlockSkeleton height="18rem" /> : null}
        {api.data ? <ApiSettingsForm api={api.data} /> : null}
      </section>
      <ApiKeys apiId={apiId} />
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
      >
        <p>
          Delete <strong>{api.data?.name}</strong>? Its keys stop verifying at once. An API with delete protection must
          have it turned off first.
        </p>
      </ConfirmDialog>
    </>
  );
}
