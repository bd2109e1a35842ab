import { useQuery } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { useState } from 'react';
import { DataTable } from '../components/DataTable.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { type BadgeTone, StatusBadge } from '../components/StatusBadge.tsx';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useWholeList } from '../useWholeList.ts';
import { type WebhookEndpoint, WebhookEndpointDialog } from './WebhookEndpointDialog.tsx';

/** Enabled, disabled by its operator, or disabled by the service because it kept failing. */
export function endpointStatus(endpoint: WebhookEndpoint): { label: string; tone: BadgeTone } {
  if (endpoint.enabled)
    return endpoint.failingSince === null ? { label: 'Enabled', tone: 'good' } : { label: 'Failing', tone: 'warn' };
  return endpoint.disabledReason === null
    ? { label: 'Disabled', tone: 'muted' }
    : { label: 'Disabled by Keyplane', tone: 'bad' };
}

/** What an endpoint asks for, in a cell: `*` in words. */
export const eventTypesText = (eventTypes: readonly string[]) =>
  eventTypes.includes('*') ? 'All events' : eventTypes.join(', ');

/** The workspace's webhook endpoints (the ones the root key may read) and creating one. */
export function Webhooks() {
  const endpoints = useWholeList(trpc.webhooks.listEndpoints, {});
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ endpointId: string; secret: string } | null>(null);
  useDocumentTitle('Webhooks');

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Webhooks</h1>
        <PermittedButton
          permission={{ resourceType: 'webhook', resourceId: '*', action: 'create_endpoint' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          <Plus size={16} aria-hidden="true" />
          Create endpoint
        </PermittedButton>
      </div>
      <p className="page-intro">
        Keyplane POSTs events to your endpoints as they happen: keys running low on credits, expiring, changed or
        revoked. Each delivery is signed, retried for about a day when it fails, and logged with the answer it got.
      </p>
      {created ? (
        <SecretPanel
          noun="secret"
          title="Signing secret of the new endpoint"
          secret={created.secret}
          doneLabel="Open endpoint"
          onDismiss={() => {
            setCreated(null);
            navigate(`/webhooks/${created.endpointId}`);
          }}
        />
      ) : null}
      <DataTable
        caption="Webhook endpoints"
        columns={['Endpoint', 'Event types', 'Status']}
        query={endpoints}
        rows={endpoints.data?.rows}
        loadingLabel="webhook endpoints"
        emptyMessage="No endpoints yet. Create one to hear about your keys as things happen."
        rowKey={(endpoint) => endpoint.endpointId}
        renderCells={(endpoint) => (
          <>
            <th scope="row">
              <Link to={`/webhooks/${endpoint.endpointId}`} className="endpoint-url">
                {endpoint.url}
              </Link>
              {endpoint.description ? <p className="hint">{endpoint.description}</p> : null}
            </th>
            <td>{eventTypesText(endpoint.eventTypes)}</td>
            <td>
              <StatusBadge {...endpointStatus(endpoint)} />
              {endpoint.disabledReason ? <p className="hint">{endpoint.disabledReason}</p> : null}
            </td>
          </>
        )}
      />
      {creating ? <WebhookEndpointDialog onClose={() => setCreating(false)} onCreated={setCreated} /> : null}
    </>
  );
}
