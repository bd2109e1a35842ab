import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { KeyStatusBadge } from '../components/StatusBadge.tsx';
import { formatTime } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { KeyEditForm } from './KeyEditForm.tsx';
import { KeyUsagePanel } from './KeyUsagePanel.tsx';
import { RerollKeyDialog } from './RerollKeyDialog.tsx';

interface KeyDetailProps {
  apiId: string;
  keyId: string;
}

export function KeyDetail({ apiId, keyId }: KeyDetailProps) {
  const queryClient = useQueryClient();
  const key = useQuery(trpc.keys.getKey.queryOptions({ keyId }));
  // The API's name for the breadcrumb, when the root key may read the API; its id otherwise.
  const mayReadApi = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_api' }) === undefined;
  const api = useQuery({ ...trpc.apis.getApi.queryOptions({ apiId }), enabled: mayReadApi });
  const [revealed, setRevealed] = useState(false);
  // The plaintext lives only while this page is open: gcTime 0 drops it from the cache on leaving.
  const plaintext = useQuery({
    ...trpc.keys.getKey.queryOptions({ keyId, decrypt: true }, { gcTime: 0, staleTime: 0 }),
    enabled: revealed,
  });
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [rerolling, setRerolling] = useState(false);
  const [rerolled, setRerolled] = useState<{ keyId: string; key: string } | null>(null);

  const invalidateKeys = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.keys.getKey.pathKey() }),
      // The API's key lists and counts.
      queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() }),
    ]);
  const toggle = useMutation(trpc.keys.updateKey.mutationOptions({ onSuccess: invalidateKeys }));
  const remove = useMutation(
    trpc.keys.deleteKey.mutationOptions({
      onSuccess: () => {
        queryClient.removeQueries({ queryKey: trpc.keys.getKey.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
        navigate(`/apis/${apiId}`);
      },
    }),
  );

  const data = key.data;
  return (
    <>
      <p className="breadcrumbs">
        <Link to="/apis">APIs</Link> / <Link to={`/apis/${apiId}`}>{api.data?.name ?? apiId}</Link> /{' '}
        <code>{keyId}</code>
      </p>
      <div className="page-header">
        <div className="title-with-status">
          <h1 tabIndex={-1}>{data?.name ?? 'Key'}</h1>
          {data ? <KeyStatusBadge keyData={data} /> : null}
        </div>
        <div className="row-actions">
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'update_key' }}
            disabled={!data || toggle.isPending}
            onClick={() => data && toggle.mutate({ keyId, enabled: !data.enabled })}
          >
            {data?.enabled === false ? 'Enable key' : 'Disable key'}
          </PermittedButton>
          {/* A reroll creates the new key. */}
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
            disabled={!data}
            onClick={() => setRerolling(true)}
          >
            Reroll key
          </PermittedButton>
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'decrypt_key' }}
            disabled={!data}
            onClick={() => setRevealed(true)}
          >
            Reveal key
          </PermittedButton>
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'delete_key' }}
            className="danger"
            disabled={!data}
            onClick={() => setConfirmingDelete(true)}
          >
            Delete key
          </PermittedButton>
        </div>
      </div>
      {toggle.error ? <ErrorMessage error={toggle.error} /> : null}
      {key.error ? <ErrorMessage error={key.error} onRetry={() => void key.refetch()} /> : null}
      {rerolled ? (
        <>
          <SecretPanel title="Rerolled key" secret={rerolled.key} onDismiss={() => setRerolled(null)} />
          <p>
            The new key is <Link to={`/apis/${apiId}/keys/${rerolled.keyId}`}>{rerolled.keyId}</Link>.
          </p>
        </>
      ) : null}
      {revealed ? (
        <section className="panel" aria-labelledby="reveal-title">
          <h2 id="reveal-title">Key</h2>
          {plaintext.isPending ? <p role="status">Decrypting…</p> : null}
          {plaintext.error ? <ErrorMessage error={plaintext.error} onRetry={() => void plaintext.refetch()} /> : null}
          {plaintext.data ? (
            plaintext.data.plaintext ? (
              <code className="secret" data-testid="revealed-key">
                {plaintext.data.plaintext}
              </code>
            ) : (
              <p>This key is not recoverable: it was not stored encrypted.</p>
            )
          ) : null}
          <button type="button" onClick={() => setRevealed(false)}>
            Hide key
          </button>
        </section>
      ) : null}

      {key.isPending ? <BlockSkeleton height="24rem" /> : null}
      {data ? (
        <>
          <section className="panel" aria-labelledby="key-facts-title">
            <h2 id="key-facts-title">Details</h2>
            <dl className="facts">
              <dt>Key id</dt>
              <dd>
                <code>{data.keyId}</code>
              </dd>
              <dt>Starts with</dt>
              <dd>
                <code>{data.start}…</code>
              </dd>
              <dt>Credits</dt>
              <dd>
                {data.credits?.remaining ?? 'Unlimited'}
                {data.credits?.refill
                  ? ` · refills to ${data.credits.refill.amount} ${data.credits.refill.interval}${
                      data.credits.refill.refillDay ? ` on day ${data.credits.refill.refillDay}` : ''
                    }`
                  : null}
              </dd>
              <dt>Created</dt>
              <dd>{formatTime(data.createdAt)}</dd>
              <dt>Updated</dt>
              <dd>{formatTime(data.updatedAt)}</dd>
              <dt>Last used</dt>
              <dd>{formatTime(data.lastUsedAt)}</dd>
              <dt>Expires</dt>
              <dd>{data.expires === undefined ? 'Never' : formatTime(data.expires)}</dd>
            </dl>
          </section>
          <KeyUsagePanel keyId={keyId} apiId={apiId} />
          <KeyEditForm apiId={apiId} keyData={data} />
        </>
      ) : null}

      {rerolling ? (
        <RerollKeyDialog
          keyId={keyId}
          apiId={apiId}
          keyStart={data?.start ?? ''}
          onClose={() => setRerolling(false)}
          onRerolled={(created) => {
            setRerolling(false);
            setRerolled(created);
            void invalidateKeys();
          }}
        />
      ) : null}
      <ConfirmDialog
        title="Delete key"
        open={confirmingDelete}
        confirmLabel="Delete key"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ keyId })}
        onClose={() => {
          setConfirmingDelete(false);
          remove.reset();
        }}
      >
        <p>
          Delete <strong>{data?.name ?? keyId}</strong>? It stops verifying at once.
        </p>
      </ConfirmDialog>
    </>
  );
}
