import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { TimeRangeControls, useTimeWindow } from '../components/TimeRangeControls.tsx';
import { ChartPanel, outcomeSummary, useVerificationSeries } from '../components/UsageCharts.tsx';
import { outcomeStyle } from '../outcomes.ts';
import { trpc } from '../trpc.ts';

const LAST_VERIFICATIONS = 20;
// Verifications come seconds apart: the list shows the seconds that formatTime leaves out.
const eventTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A key's usage over time and its latest verifications, for the key page. */
export function KeyUsagePanel({ keyId, apiId }: { keyId: string; apiId: string }) {
  const listKey = trpc.keys.listVerifications.queryKey({ keyId, limit: LAST_VERIFICATIONS });
  const timeWindow = useTimeWindow('day', [listKey]);
  const missing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_analytics' });
  const verifications = useVerificationSeries(timeWindow, { apiId, keyId }, missing);

  return (
    <>
      <ChartPanel
        title="Usage of this key"
        query={verifications.query}
        timeWindow={timeWindow}
        series={verifications.outcomes}
        summary={outcomeSummary(verifications.outcomes)}
        missing={missing}
        controls={<TimeRangeControls timeWindow={timeWindow} />}
      />
      <LastVerifications keyId={keyId} apiId={apiId} missing={missing} />
    </>
  );
}

function LastVerifications({ keyId, apiId, missing }: { keyId: string; apiId: string; missing?: string }) {
  const id = useId();
  const readKeyMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_key' });
  const why = missing ?? readKeyMissing;
  const last = useQuery({
    ...trpc.keys.listVerifications.queryOptions({ keyId, limit: LAST_VERIFICATIONS }),
    enabled: why === undefined,
  });
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>Last verifications</h2>
      {why ? <p className="hint">Not shown: {why}</p> : null}
      {last.error ? <ErrorMessage error={last.error} onRetry={() => void last.refetch()} /> : null}
      {last.data?.data.length === 0 ? <p>Not verified yet. Verifications show here as they happen.</p> : null}
      {last.isPending && !why ? <LoadingStatus label="verifications" /> : null}
      {(last.isPending && !why) || (last.data && last.data.data.length > 0) ? (
        <div className="table-wrap cards">
          <table>
            <caption className="visually-hidden">The last {LAST_VERIFICATIONS} verifications of this key</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Outcome</th>
                <th scope="col">Tags</th>
                <th scope="col">Credits spent</th>
              </tr>
            </thead>
            <tbody>
              {last.data ? (
                last.data.data.map((event) => (
                  <tr key={event.requestId}>
                    <th scope="row">{eventTime.format(event.time)}</th>
                    <td data-label="Outcome">
                      <StatusBadge
                        label={outcomeStyle(event.outcome).label}
                        tone={event.outcome === 'VALID' ? 'good' : 'bad'}
                      />
                    </td>
                    <td data-label="Tags">
                      {event.tags.length > 0 ? (
                        <ul className="chips">
                          {event.tags.map((tag) => (
                            <li key={tag}>
                              <code>{tag}</code>
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <span className="hint">No tags</span>
                      )}
                    </td>
                    <td data-label="Credits spent">{event.spentCredits}</td>
                  </tr>
                ))
              ) : (
                <TableSkeletonRows columns={4} />
              )}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
