import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';

export function Identities() {
  const pages = useCursorPages();
  const [search, setSearch] = useState('');
  const appliedSearch = useDebouncedValue(search.trim());
  const identities = useQuery(
    trpc.identities.listIdentities.queryOptions({
      limit: 50,
      cursor: pages.cursor,
      search: appliedSearch || undefined,
    }),
  );
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Identities</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create identity
        </button>
      </div>
      <p className="hint">An identity groups the keys of one of your customers and shares its limits among them.</p>
      <div className="field">
        <label htmlFor="identity-search">Search identities</label>
        <input
          id="identity-search"
          type="search"
          placeholder="Identity id or external id"
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            pages.reset();
          }}
        />
      </div>
      {identities.error ? <ErrorMessage error={identities.error} onRetry={() => void identities.refetch()} /> : null}
      {identities.isPending ? <LoadingStatus label="identities" /> : null}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Identities of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">External id</th>
              <th scope="col">Identity id</th>
              <th scope="col">Rate limits</th>
            </tr>
          </thead>
          <tbody>
            {identities.isPending ? <TableSkeletonRows columns={3} /> : null}
            {identities.data?.data.length === 0 ? (
              <tr>
                <td colSpan={3}>
                  {appliedSearch
                    ? 'No identity matches the search.'
                    : 'No identities yet. Create one, or create a key with an external id.'}
                </td>
              </tr>
            ) : null}
            {identities.data?.data.map((identity) => (
              <tr key={identity.id}>
                <th scope="row">
                  <Link to={`/identities/${identity.id}`}>{identity.externalId}</Link>
                </th>
                <td>
                  <code>{identity.id}</code>
                </td>
                <td>{identity.ratelimits?.length ?? 0}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={identities.data?.pagination.cursor} label="Identities" />
      <CreateIdentityDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

function CreateIdentityDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [externalId, setExternalId] = useState('');
  const create = useMutation(trpc.identities.createIdentity.mutationOptions());

  const close = () => {
    setExternalId('');
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { externalId: externalId.trim() },
      {
        onSuccess: ({ identityId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() });
          close();
          navigate(`/identities/${identityId}`);
        },
      },
    );
  };

  return (
    <Dialog title="Create identity" open={open} onClose={close}>
      <form onSubmit={submit} className="stack">
        <div className="field">
          <label htmlFor="identity-external-id">External id</label>
          <input
            id="identity-external-id"
            required
            pattern="[a-zA-Z0-9_.\-]+"
            maxLength={255}
            value={externalId}
            onChange={(event) => setExternalId(event.target.value)}
          />
        </div>
        {create.error ? <ErrorMessage error={create.error} /> : null}
        <div className="actions">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}
