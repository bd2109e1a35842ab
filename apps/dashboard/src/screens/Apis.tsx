import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DataTable } from '../components/DataTable.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { formatTime } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';

export function Apis() {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 50, cursor: pages.cursor }));
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>APIs</h1>
        <PermittedButton
          permission={{ resourceType: 'api', resourceId: '*', action: 'create_api' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create API
        </PermittedButton>
      </div>
      <DataTable
        caption="APIs of this workspace"
        columns={['Name', 'API id', 'Created']}
        query={apis}
        rows={apis.data?.data}
        loadingLabel="APIs"
        emptyMessage="No APIs yet. Create one to start issuing keys."
        rowKey={(api) => api.id}
        renderCells={(api) => (
          <>
            <th scope="row">
              <Link to={`/apis/${api.id}`}>{api.name}</Link>
            </th>
            <td>
              <code>{api.id}</code>
            </td>
            <td>{formatTime(api.createdAt)}</td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={apis.data?.pagination.cursor} label="APIs" />
      <SingleFieldCreateDialog
        title="Create API"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="api-name"
        fieldLabel="API name"
        constraints={{ minLength: 3, maxLength: 255 }}
        mutationOptions={trpc.apis.createApi.mutationOptions()}
        toInput={(name) => ({ name })}
        onCreated={({ apiId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
          navigate(`/apis/${apiId}`);
        }}
      />
    </>
  );
}
