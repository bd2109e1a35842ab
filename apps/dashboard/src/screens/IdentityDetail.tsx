import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { type RatelimitRow, RatelimitsEditor } from '../components/RatelimitsEditor.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

export function IdentityDetail({ identity }: { identity: string }) {
  const queryClient = useQueryClient();
  const found = useQuery(trpc.identities.getIdentity.queryOptions({ identity }));
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(
    trpc.identities.deleteIdentity.mutationOptions({
      onSuccess: () => {
        queryClient.removeQueries({ queryKey: trpc.identities.getIdentity.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() });
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
        <button type="button" className="danger" disabled={!found.data} onClick={() => setDeleting(true)}>
          Delete identity
        </button>
      </div>
      {found.error ? <ErrorMessage error={found.error} onRetry={() => void found.refetch()} /> : null}
      {found.isPending ? <BlockSkeleton height="20rem" /> : null}
      {found.data ? <IdentityForm key={found.dataUpdatedAt} identity={found.data} /> : null}
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
  const [meta, setMeta] = useState(identity.meta ? JSON.stringify(identity.meta, null, 2) : '');
  const [metaProblem, setMetaProblem] = useState<string | null>(null);
  const [ratelimits, setRatelimits] = useState<RatelimitRow[]>(
    // The stored limits' ids are not part of the update: limits are replaced by name.
    (identity.ratelimits ?? []).map(({ name, limit, duration, autoApply }) => ({ name, limit, duration, autoApply })),
  );
  const update = useMutation(
    trpc.identities.updateIdentity.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() }),
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    let parsedMeta: Record<string, unknown> | null = null;
    if (meta.trim() !== '') {
      try {
        parsedMeta = JSON.parse(meta);
      } catch {
        setMetaProblem('Meta must be a JSON object.');
        return;
      }
    }
    setMetaProblem(null);
    update.mutate({ identity: identity.id, meta: parsedMeta, ratelimits });
  };

  return (
    <form onSubmit={submit} className="panel stack">
      <p>
        Identity id <code>{identity.id}</code>
      </p>
      <div className="field">
        <label htmlFor="identity-meta">Meta (JSON object)</label>
        <textarea
          id="identity-meta"
          rows={6}
          value={meta}
          onChange={(event) => setMeta(event.target.value)}
          aria-invalid={metaProblem !== null}
          aria-describedby="identity-meta-problem"
        />
        <p id="identity-meta-problem" className="field-error">
          {metaProblem}
        </p>
      </div>
      <RatelimitsEditor rows={ratelimits} onChange={setRatelimits} />
      {update.error ? <ErrorMessage error={update.error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>
          Save identity
        </button>
        <span role="status">{update.isSuccess ? 'Saved.' : null}</span>
      </div>
    </form>
  );
}
