import { useQuery } from '@tanstack/react-query';
import { DataTable } from '../components/DataTable.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { formatTime } from '../format.ts';
import { trpc } from '../trpc.ts';

/** Recent changes to the workspace, newest first, and the root key that made each. */
export function AuditLog() {
  const pages = useCursorPages();
  const events = useQuery(trpc.audit.listEvents.queryOptions({ limit: 50, cursor: pages.cursor }));

  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <DataTable
        caption="Audit events, newest first"
        columns={['Time', 'Event', 'Root key', 'Resources']}
        query={events}
        rows={events.data?.data}
        loadingLabel="audit events"
        emptyMessage="No changes recorded yet. Changes made here or through the API appear as they happen."
        rowKey={(event) => event.id}
        renderCells={(event) => (
          <>
            <td>{formatTime(event.time)}</td>
            <th scope="row">
              <code>{event.event}</code>
            </th>
            <td>{event.rootKeyId ? <code>{event.rootKeyId}</code> : '—'}</td>
            <td>
              <ul className="plain">
                {Object.entries(event.resources).map(([kind, id]) => (
                  <li key={kind}>
                    {kind}: <code>{id}</code>
                  </li>
                ))}
              </ul>
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={events.data?.pagination.cursor} label="Audit log" />
    </>
  );
}
