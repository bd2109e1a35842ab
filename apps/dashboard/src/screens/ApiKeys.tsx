import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { Link } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { CreateKeyDialog } from './CreateKeyDialog.tsx';

const PAGE_SIZE = 50;
const COLUMNS = 9;

/** The API's keys, a page at a time; the search runs on the server across all of them. */
export function ApiKeys({ apiId }: { apiId: string }) {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const [search, setSearch] = useState('');
  const [appliedSearch, setAppliedSearch] = useState('');
  const keys = useQuery(
    trpc.apis.listKeys.queryOptions({
      apiId,
      limit: PAGE_SIZE,
      cursor: pages.cursor,
      ...(appliedSearch ? { search: appliedSearch } : {}),
    }),
  );
  const [creating, setCreating] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);

  const applySearch = (event: FormEvent) => {
    event.preventDefault();
    setAppliedSearch(search.trim());
    pages.reset();
  };
  const shown = keys.data?.data;

  return (
    <section aria-labelledby="api-keys-title" className="panel">
      <div className="page-header">
        <h2 id="api-keys-title">Keys</h2>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create key
        </button>
      </div>
      {newKey ? <SecretPanel title="New key" secret={newKey} onDismiss={() => setNewKey(null)} /> : null}
      <search>
        <form className="inline-form" onSubmit={applySearch}>
          <div className="field">
            <label htmlFor="key-search">Search keys</label>
            <input
              id="key-search"
              type="search"
              placeholder="Name, key id or start"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          </div>
          <button type="submit">Search</button>
        </form>
      </search>
      {keys.error ? <ErrorMessage error={keys.error} onRetry={() => void keys.refetch()} /> : null}
      {keys.isPending ? <LoadingStatus label="keys" /> : null}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Keys of this API</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key id</th>
              <th scope="col">Starts with</th>
              <th scope="col">External id</th>
              <th scope="col">Status</th>
              <th scope="col">Credits</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {keys.isPending ? <TableSkeletonRows columns={COLUMNS} /> : null}
            {shown?.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS}>
                  {appliedSearch
                    ? 'No key matches the search. Try part of its name, its id or its first characters.'
                    : 'No keys yet. Create one to give a customer access.'}
                </td>
              </tr>
            ) : null}
            {shown?.map((key) => (
              <tr key={key.keyId}>
                <th scope="row">
                  <Link to={`/apis/${apiId}/keys/${key.keyId}`}>{key.name ?? key.keyId}</Link>
                </th>
                <td>
                  <code>{key.keyId}</code>
                </td>
                <td>
                  <code>{key.start}…</code>
                </td>
                <td>{key.identity?.externalId ?? '—'}</td>
                <td>{key.enabled ? 'Enabled' : 'Disabled'}</td>
                <td>{key.credits?.remaining ?? 'Unlimited'}</td>
                <td>{formatTime(key.createdAt)}</td>
                <td>{formatTime(key.lastUsedAt)}</td>
                <td>{formatTime(key.expires)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={keys.data?.pagination.cursor} label="Keys" />
      <CreateKeyDialog
        apiId={apiId}
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setNewKey(key);
          void queryClient.invalidateQueries({ queryKey: trpc.apis.listKeys.pathKey() });
        }}
      />
    </section>
  );
}
