import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { DataTable } from '../components/DataTable.tsx';
import { Pager, useSearchedPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';

export function Identities() {
  const queryClient = useQueryClient();
  const { pages, search, setSearch, appliedSearch } = useSearchedPages();
  // Listing checks read_identity on each identity of the page: only the wildcard is sure to pass.
  const readMissing = useMissingPermission({ resourceType: 'identity', resourceId: '*', action: 'read_identity' });
  const identities = useQuery({
    ...trpc.identities.listIdentities.queryOptions({
      limit: 50,
      cursor: pages.cursor,
      search: appliedSearch,
    }),
    enabled: readMissing === undefined,
  });
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Identities</h1>
        <PermittedButton
          permission={{ resourceType: 'identity', resourceId: '*', action: 'create_identity' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create identity
        </PermittedButton>
      </div>
      <p className="hint">An identity groups the keys of one of your customers and shares its limits among them.</p>
      {readMissing ? (
        <p className="hint">Not listed: {readMissing}</p>
      ) : (
        <>
          <div className="field">
            <label htmlFor="identity-search">Search identities</label>
            <input
              id="identity-search"
              type="search"
              placeholder="Identity id or external id"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          </div>
          <DataTable
            caption="Identities of this workspace"
            columns={['External id', 'Identity id', 'Rate limits']}
            query={identities}
            rows={identities.data?.data}
            loadingLabel="identities"
            emptyMessage={
              appliedSearch
                ? 'No identity matches the search.'
                : 'No identities yet. Create one, or create a key with an external id.'
            }
            rowKey={(identity) => identity.id}
            renderCells={(identity) => (
              <>
                <th scope="row">
                  <Link to={`/identities/${identity.id}`}>{identity.externalId}</Link>
                </th>
                <td>
                  <code>{identity.id}</code>
                </td>
                <td>{identity.ratelimits?.length ?? 0}</td>
              </>
            )}
          />
          <Pager pages={pages} nextCursor={identities.data?.pagination.cursor} label="Identities" />
        </>
      )}
      <SingleFieldCreateDialog
        title="Create identity"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="identity-external-id"
        fieldLabel="External id"
        constraints={{ pattern: '[a-zA-Z0-9_.\\-]+', maxLength: 255 }}
        mutationOptions={trpc.identities.createIdentity.mutationOptions()}
        toInput={(externalId) => ({ externalId })}
        onCreated={({ identityId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() });
          navigate(`/identities/${identityId}`);
        }}
      />
    </>
  );
}
