import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';

export function Apis() {
  const pages = useCursorPages();
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 50, cursor: pages.cursor }));
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>APIs</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create API
        </button>
      </div>
      {apis.error ? <ErrorMessage error={apis.error} onRetry={() => void apis.refetch()} /> : null}
      {apis.isPending ? <LoadingStatus label="APIs" /> : null}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">APIs of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">API id</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {apis.isPending ? <TableSkeletonRows columns={3} /> : null}
            {apis.data?.data.length === 0 ? (
              <tr>
                <td colSpan={3}>No APIs yet. Create one to start issuing keys.</td>
              </tr>
            ) : null}
            {apis.data?.data.map((api) => (
              <tr key={api.id}>
                <th scope="row">
                  <Link to={`/apis/${api.id}`}>{api.name}</Link>
                </th>
                <td>
                  <code>{api.id}</code>
                </td>
                <td>{formatTime(api.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={apis.data?.pagination.cursor} label="APIs" />
      <CreateApiDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

function CreateApiDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation(trpc.apis.createApi.mutationOptions());

  const close = () => {
    setName('');
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim() },
      {
        onSuccess: ({ apiId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
          close();
          navigate(`/apis/${apiId}`);
        },
      },
    );
  };

  return (
    <Dialog title="Create API" open={open} onClose={close}>
      <form onSubmit={submit} className="stack">
        <div className="field">
          <label htmlFor="api-name">API name</label>
          <input
            id="api-name"
            required
            minLength={3}
            maxLength={255}
            value={name}
            onChange={(event) => setName(event.target.value)}
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
