import { useQuery } from '@tanstack/react-query';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { trpc } from '../trpc.ts';

/** Recent changes to the workspace, newest first, and the root key that made each. */
export function AuditLog() {
  const pages = useCursorPages();
  const events = useQuery(trpc.audit.listEvents.queryOptions({ limit: 50, cursor: pages.cursor }));

  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      {events.error ? <ErrorMessage error={events.error} onRetry={() => void events.refetch()} /> : null}
      {events.isPending ? <LoadingStatus label="audit events" /> : null}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Root key</th>
              <th scope="col">Resources</th>
            </tr>
          </thead>
          <tbody>
            {events.isPending ? <TableSkeletonRows columns={4} /> : null}
            {events.data?.data.length === 0 ? (
              <tr>
                <td colSpan={4}>
                  No changes recorded yet. Changes made here or through the API appear as they happen.
                </td>
              </tr>
            ) : null}
            {events.data?.data.map((event) => (
              <tr key={event.id}>
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
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={events.data?.pagination.cursor} label="Audit log" />
    </>
  );
}
