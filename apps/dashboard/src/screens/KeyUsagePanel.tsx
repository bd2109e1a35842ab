import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { OutcomeBadge } from '../components/OutcomeBadge.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { TimeRangeControls, useTimeWindow } from '../components/TimeRangeControls.tsx';
import { ChartPanel, outcomeSummary, useVerificationSeries } from '../components/UsageCharts.tsx';
import { formatNumber, formatTimeSeconds } from '../format.ts';
import { Link } from '../router.tsx';
import { trpc } from '../trpc.ts';

const LAST_VERIFICATIONS = 20;

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
      <div className="page-header">
        <h2 id={id}>Last verifications</h2>
        <Link to={`/usage?api=${apiId}&key=${keyId}&range=month#verification-log`}>Every verification of this key</Link>
      </div>
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
                    <th scope="row">{formatTimeSeconds(event.time)}</th>
                    <td data-label="Outcome">
                      <OutcomeBadge outcome={event.outcome} />
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
                    <td data-label="Credits spent">{formatNumber(event.spentCredits)}</td>
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
