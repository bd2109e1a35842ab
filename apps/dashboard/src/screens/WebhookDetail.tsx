import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { BlockSkeleton, LoadingStatus } from '../components/Skeleton.tsx';
import { type BadgeTone, StatusBadge } from '../components/StatusBadge.tsx';
import { formatDuration, formatTime } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useWholeList } from '../useWholeList.ts';
import { type WebhookEndpoint, WebhookEndpointDialog, webhookApiChoices } from './WebhookEndpointDialog.tsx';
import { endpointStatus, eventTypesText } from './Webhooks.tsx';

type Delivery = RouterOutputs['webhooks']['listDeliveries']['data'][number];

const DELIVERIES_PER_PAGE = 20;
/** While a delivery on the page waits for an attempt, the log looks again this often. */
const PENDING_REFRESH_MS = 2000;

/** One endpoint: its settings, what can be done to it, and its delivery log. */
export function WebhookDetail({ endpointId }: { endpointId: string }) {
  const endpoints = useWholeList(trpc.webhooks.listEndpoints, {});
  const endpoint = endpoints.data?.rows.find((candidate) => candidate.endpointId === endpointId);

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/webhooks">Webhooks</Link> / <code>{endpointId}</code>
      </p>
      {endpoint ? (
        <EndpointPanel endpoint={endpoint} />
      ) : (
        <>
          <h1 tabIndex={-1}>Webhook endpoint</h1>
          {endpoints.isPending ? <BlockSkeleton height="12rem" /> : null}
          {endpoints.error ? <ErrorMessage error={endpoints.error} onRetry={() => void endpoints.refetch()} /> : null}
          {endpoints.data ? <p>This endpoint does not exist, or your root key may not read it.</p> : null}
        </>
      )}
      <DeliveryLog endpointId={endpointId} />
    </>
  );
}

function EndpointPanel({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const { endpointId } = endpoint;
  const update = { resourceType: 'webhook', resourceId: endpointId, action: 'update_endpoint' } as const;
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const toggle = useMutation(trpc.webhooks.updateEndpoint.mutationOptions({ onSuccess: refresh }));
  const sendTest = useMutation(trpc.webhooks.sendTest.mutationOptions({ onSuccess: refresh }));
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: (rotated) => {
        setRotating(false);
        setSecret(rotated.secret);
      },
    }),
  );
  const remove = useMutation(
    trpc.webhooks.deleteEndpoint.mutationOptions({
      onSuccess: async () => {
        await refresh();
        navigate('/webhooks');
      },
    }),
  );

  return (
    <>
      <div className="page-header">
        <div className="title-with-status">
          <h1 tabIndex={-1} className="endpoint-url">
            {endpoint.url}
          </h1>
          <StatusBadge {...endpointStatus(endpoint)} />
        </div>
        <div className="row-actions">
          <PermittedButton
            permission={update}
            className="primary"
            disabled={!endpoint.enabled || sendTest.isPending}
            onClick={() => sendTest.mutate({ endpointId })}
          >
            Send test event
          </PermittedButton>
          <PermittedButton
            permission={update}
            disabled={toggle.isPending}
            onClick={() => toggle.mutate({ endpointId, enabled: !endpoint.enabled })}
          >
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </PermittedButton>
          <PermittedButton permission={update} onClick={() => setEditing(true)}>
            Edit
          </PermittedButton>
          <PermittedButton permission={update} onClick={() => setRotating(true)}>
            Rotate secret
          </PermittedButton>
          <PermittedButton
            permission={{ resourceType: 'webhook', resourceId: endpointId, action: 'delete_endpoint' }}
            className="danger"
            onClick={() => setDeleting(true)}
          >
            Delete
          </PermittedButton>
        </div>
      </div>
      {endpoint.disabledReason ? <p className="warning">{endpoint.disabledReason}</p> : null}
      {endpoint.enabled ? null : <p className="hint">Enable the endpoint to send it events, test events too.</p>}
      <p role="status" className="hint">
        {sendTest.isSuccess ? 'Test event queued: it shows in the delivery log below.' : null}
      </p>
      {sendTest.error ? <ErrorMessage error={sendTest.error} /> : null}
      {toggle.error ? <ErrorMessage error={toggle.error} /> : null}
      {secret ? (
        <SecretPanel title="New signing secret" noun="secret" secret={secret} onDismiss={() => setSecret(null)} />
      ) : null}
      <section className="panel" aria-labelledby="endpoint-facts-title">
        <h2 id="endpoint-facts-title">Settings</h2>
        <dl className="facts">
          <dt>Endpoint id</dt>
          <dd>
            <code>{endpointId}</code>
          </dd>
          {endpoint.description ? (
            <>
              <dt>Description</dt>
              <dd>{endpoint.description}</dd>
            </>
          ) : null}
          <dt>Event types</dt>
          <dd>{eventTypesText(endpoint.eventTypes)}</dd>
          <dt>APIs</dt>
          <dd>{endpoint.apiIds ? <ApiNames apiIds={endpoint.apiIds} /> : 'Every API'}</dd>
          <dt>key.credits.low</dt>
          <dd>{creditsLowText(endpoint.creditsLow)}</dd>
          <dt>key.expiring</dt>
          <dd>{formatDuration(endpoint.expiringNoticeMs)} before a key expires</dd>
          <dt>Failing since</dt>
          <dd>{endpoint.failingSince === null ? 'Not failing' : formatTime(endpoint.failingSince)}</dd>
          <dt>Created</dt>
          <dd>
            <RelativeTime epochMs={endpoint.createdAt} />
          </dd>
        </dl>
      </section>
      {editing ? <WebhookEndpointDialog endpoint={endpoint} onClose={() => setEditing(false)} /> : null}
      <ConfirmDialog
        title="Rotate signing secret"
        open={rotating}
        confirmLabel="Rotate secret"
        pending={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotate.mutate({ endpointId })}
        onClose={() => {
          setRotating(false);
          rotate.reset();
        }}
      >
        <p>
          Sign every delivery from now on, retries too, with a new secret? Your receiver rejects them until it verifies
          with the new secret.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title="Delete endpoint"
        open={deleting}
        confirmLabel="Delete endpoint"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ endpointId })}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>
          Delete the endpoint <strong className="endpoint-url">{endpoint.url}</strong> and its delivery log? Events not
          yet delivered are dropped.
        </p>
      </ConfirmDialog>
    </>
  );
}

/** APIs by name where the root key may read them, else by id. */
function ApiNames({ apiIds }: { apiIds: readonly string[] }) {
  const apis = useQuery(webhookApiChoices());
  const nameOf = (apiId: string) => apis.data?.data.find((api) => api.id === apiId)?.name ?? apiId;
  return <>{apiIds.map(nameOf).join(', ')}</>;
}

function creditsLowText({ threshold, percent }: WebhookEndpoint['creditsLow']): string {
  const limits = [
    ...(threshold === null ? [] : [`${threshold} credits`]),
    ...(percent === null ? [] : [`${percent}% of the refill amount`]),
  ];
  return limits.length === 0 ? 'Never' : `At or below ${limits.join(' or ')}`;
}

const DELIVERY_BADGES: Record<Delivery['state'], { label: string; tone: BadgeTone }> = {
  pending: { label: 'Pending', tone: 'warn' },
  succeeded: { label: 'Delivered', tone: 'good' },
  failed: { label: 'Failed', tone: 'bad' },
};

/** The endpoint's deliveries, newest first, each with every attempt and the answer it got. */
function DeliveryLog({ endpointId }: { endpointId: string }) {
  const titleId = useId();
  const pages = useCursorPages();
  const deliveries = useQuery(
    trpc.webhooks.listDeliveries.queryOptions(
      { endpointId, limit: DELIVERIES_PER_PAGE, cursor: pages.cursor },
      {
        refetchInterval: (query) =>
          query.state.data?.data.some((delivery) => delivery.state === 'pending') ? PENDING_REFRESH_MS : false,
      },
    ),
  );

  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Delivery log</h2>
      {deliveries.isPending ? <LoadingStatus label="deliveries" /> : null}
      {deliveries.error ? <ErrorMessage error={deliveries.error} onRetry={() => void deliveries.refetch()} /> : null}
      {deliveries.data?.data.length === 0 ? (
        <p className="hint">No deliveries yet. Send a test event to see one.</p>
      ) : null}
      <ol className="delivery-log" aria-label="Deliveries">
        {deliveries.data?.data.map((delivery) => (
          <DeliveryEntry key={delivery.deliveryId} delivery={delivery} />
        ))}
      </ol>
      <Pager pages={pages} nextCursor={deliveries.data?.pagination.cursor} label="Deliveries" />
    </section>
  );
}

function DeliveryEntry({ delivery }: { delivery: Delivery }) {
  const queryClient = useQueryClient();
  const redeliver = useMutation(
    trpc.webhooks.redeliver.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.listDeliveries.pathKey() }),
    }),
  );

  return (
    <li className="delivery" aria-label={`${delivery.eventType} delivery ${delivery.deliveryId}`}>
      <div className="title-with-status">
        <code>{delivery.eventType}</code>
        <StatusBadge {...DELIVERY_BADGES[delivery.state]} />
        <RelativeTime epochMs={delivery.createdAt} />
      </div>
      <p className="hint">
        {delivery.nextAttemptAt === null ? (
          <>
            Delivery <code>{delivery.deliveryId}</code>
          </>
        ) : (
          <>
            Next attempt <RelativeTime epochMs={delivery.nextAttemptAt} />
          </>
        )}
      </p>
      {delivery.attempts.length === 0 ? <p className="hint">Not attempted yet.</p> : null}
      <ol className="attempts" aria-label="Attempts">
        {delivery.attempts.map((attempt, index) => (
          <li key={attempt.attemptedAt}>
            <p>
              Attempt {index + 1} · {formatTime(attempt.attemptedAt)} ·{' '}
              <strong>{attempt.statusCode === null ? 'No answer' : `HTTP ${attempt.statusCode}`}</strong> ·{' '}
              {Math.round(attempt.durationMs)} ms
            </p>
            {attempt.error ? <p className="attempt-error">{attempt.error}</p> : null}
            {attempt.responseBody ? <pre className="response-body">{attempt.responseBody}</pre> : null}
          </li>
        ))}
      </ol>
      <details>
        <summary>Payload</summary>
        {delivery.payloadWithheld ? (
          <p className="hint">The event's data is withheld: your root key may not read what the event is about.</p>
        ) : null}
        <pre className="response-body">{JSON.stringify(delivery.payload, null, 2)}</pre>
      </details>
      <PermittedButton
        permission={{ resourceType: 'webhook', resourceId: delivery.endpointId, action: 'update_endpoint' }}
        disabled={redeliver.isPending}
        onClick={() => redeliver.mutate({ deliveryId: delivery.deliveryId })}
      >
        Redeliver<span className="visually-hidden"> {delivery.eventType} delivery</span>
      </PermittedButton>
      {redeliver.error ? <ErrorMessage error={redeliver.error} /> : null}
    </li>
  );
}
