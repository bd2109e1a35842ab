import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { DataTable } from '../components/DataTable.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { KeyStatusBadge } from '../components/StatusBadge.tsx';
import { formatTime } from '../format.ts';
import { Link } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { CreateKeyDialog } from './CreateKeyDialog.tsx';

const PAGE_SIZE = 50;

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

  return (
    <section aria-labelledby="api-keys-title" className="panel">
      <div className="page-header">
        <h2 id="api-keys-title">Keys</h2>
        <PermittedButton
          permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create key
        </PermittedButton>
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
      <DataTable
        caption="Keys of this API"
        columns={[
          'Name',
          'Key id',
          'Starts with',
          'External id',
          'Status',
          'Credits',
          'Created',
          'Last used',
          'Expires',
        ]}
        query={keys}
        rows={keys.data?.data}
        loadingLabel="keys"
        emptyMessage={
          appliedSearch
            ? 'No key matches the search. Try part of its name, its id or its first characters.'
            : 'No keys yet. Create one to give a customer access.'
        }
        rowKey={(key) => key.keyId}
        renderCells={(key) => (
          <>
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
            <td>
              <KeyStatusBadge keyData={key} />
            </td>
            <td>{key.credits?.remaining ?? 'Unlimited'}</td>
            <td>{formatTime(key.createdAt)}</td>
            <td>{formatTime(key.lastUsedAt)}</td>
            <td>{formatTime(key.expires)}</td>
          </>
        )}
      />
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
