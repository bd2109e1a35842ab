import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { formatMeta } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';

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
      {found.data ? <IdentityForm identity={found.data} /> : null}
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
      <SaveActions label="Save identity" mutation={update} draft={draft} />
    </form>
  );
}
