import {
  DEFAULT_CREDITS_LOW_THRESHOLD,
  DEFAULT_EXPIRING_NOTICE_MS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '@keyplane/core/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { fieldProblem } from '../components/ErrorMessage.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

export type WebhookEndpoint = RouterOutputs['webhooks']['listEndpoints']['data'][number];

type EventTypeChoice = WebhookEventType | '*';

const isEventTypeChoice = (type: string): type is EventTypeChoice =>
  type === '*' || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

const DAY_MS = 86_400_000;
/** The APIs offered as a filter: a workspace with more filters by the first ones or none. */
const API_CHOICES = 100;

/** The workspace's first APIs (cached for the dialog and the endpoint's page alike). */
export const webhookApiChoices = () => trpc.apis.listApis.queryOptions({ limit: API_CHOICES });

interface WebhookEndpointDialogProps {
  /** The endpoint to edit; absent: create one. */
  endpoint?: WebhookEndpoint;
  onClose: () => void;
  /** A new endpoint, with the signing secret shown only now. */
  onCreated?: (created: { endpointId: string; secret: string }) => void;
}

/** Creates an endpoint or edits one: its target, the events it wants, the APIs it hears about and its thresholds. */
export function WebhookEndpointDialog({ endpoint, onClose, onCreated }: WebhookEndpointDialogProps) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [eventTypes, setEventTypes] = useState<EventTypeChoice[]>(
    endpoint?.eventTypes.filter(isEventTypeChoice) ?? ['*'],
  );
  const [apiIds, setApiIds] = useState<string[]>(endpoint?.apiIds ?? []);
  const [enabled, setEnabled] = useState(true);
  const [threshold, setThreshold] = useState(numberText(endpoint?.creditsLow.threshold));
  const [percent, setPercent] = useState(numberText(endpoint?.creditsLow.percent));
  const [noticeDays, setNoticeDays] = useState(
    String((endpoint?.expiringNoticeMs ?? DEFAULT_EXPIRING_NOTICE_MS) / DAY_MS),
  );
  const apis = useQuery(webhookApiChoices());

  const onSaved = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const create = useMutation(
    trpc.webhooks.createEndpoint.mutationOptions({
      onSuccess: (created) => {
        void onSaved();
        onCreated?.(created);
        onClose();
      },
    }),
  );
  const update = useMutation(
    trpc.webhooks.updateEndpoint.mutationOptions({
      onSuccess: () => {
        void onSaved();
        onClose();
      },
    }),
  );

  const allEvents = eventTypes.includes('*');
  const mutation = endpoint ? update : create;
  // A refusal of the URL shows at the URL field, where it is fixed.
  const urlProblem = fieldProblem(mutation.error, 'url');

  const submit = () => {
    const settings = {
      url: url.trim(),
      eventTypes,
      creditsLow: {
        ...(threshold === '' ? {} : { threshold: Number(threshold) }),
        ...(percent === '' ? {} : { percent: Number(percent) }),
      },
      expiringNoticeMs: Math.round(Number(noticeDays) * DAY_MS),
    };
    if (endpoint) {
      update.mutate({
        endpointId: endpoint.endpointId,
        ...settings,
        apiIds: apiIds.length > 0 ? apiIds : null,
        description: description.trim() || null,
      });
    } else {
      create.mutate({
        ...settings,
        apiIds: apiIds.length > 0 ? apiIds : undefined,
        description: description.trim() || undefined,
        enabled,
      });
    }
  };

  return (
    <FormDialog
      title={endpoint ? 'Edit endpoint' : 'Create endpoint'}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel={endpoint ? 'Save endpoint' : 'Create endpoint'}
      mutation={mutation}
      errorShownAtField={urlProblem !== undefined}
      incomplete={eventTypes.length === 0}
      permission={{
        resourceType: 'webhook',
        resourceId: endpoint?.endpointId ?? '*',
        action: endpoint ? 'update_endpoint' : 'create_endpoint',
      }}
      wide
    >
      <div className="field">
        <label htmlFor="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks/keyplane"
          value={url}
          onChange={(event) => {
            setUrl(event.target.value);
            mutation.reset();
          }}
          aria-invalid={urlProblem !== undefined}
          aria-describedby="webhook-url-hint webhook-url-problem"
        />
        <p id="webhook-url-hint" className="hint">
          Where each event is POSTed, signed with the endpoint's secret (Standard Webhooks).
        </p>
        <p id="webhook-url-problem" className="field-error" role={urlProblem ? 'alert' : undefined}>
          {urlProblem}
        </p>
      </div>
      <div className="field">
        <label htmlFor="webhook-description">Description (optional)</label>
        <input
          id="webhook-description"
          maxLength={255}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
      </div>
      <fieldset>
        <legend>Event types</legend>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={allEvents}
            onChange={(event) => setEventTypes(event.target.checked ? ['*'] : [])}
          />
          All events, including types added later (<code>*</code>)
        </label>
        <div className="checkbox-grid">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="checkbox">
              <input
                type="checkbox"
                disabled={allEvents}
                checked={allEvents || eventTypes.includes(type)}
                onChange={(event) => setEventTypes(toggle(eventTypes, type, event.target.checked))}
              />
              <code>{type}</code>
            </label>
          ))}
        </div>
        {eventTypes.length === 0 ? <p className="hint">Choose at least one event type.</p> : null}
      </fieldset>
      <fieldset>
        <legend>APIs</legend>
        <p className="hint">Only key events of the APIs chosen; none chosen: every API. Root-key events always go.</p>
        {apis.isPending ? <BlockSkeleton height="3rem" /> : null}
        <div className="checkbox-grid">
          {apis.data?.data.map((api) => (
            <label key={api.id} className="checkbox">
              <input
                type="checkbox"
                checked={apiIds.includes(api.id)}
                onChange={(event) => setApiIds(toggle(apiIds, api.id, event.target.checked))}
              />
              {api.name}
            </label>
          ))}
        </div>
        {apis.data?.pagination.hasMore ? (
          <p className="hint">Showing the first {API_CHOICES} APIs; the webhooks.updateEndpoint procedure takes any.</p>
        ) : null}
      </fieldset>
      <fieldset>
        <legend>When to send key.credits.low</legend>
        <div className="field">
          <label htmlFor="webhook-threshold">At or below this many credits</label>
          <input
            id="webhook-threshold"
            type="number"
            min={0}
            step={1}
            value={threshold}
            onChange={(event) => setThreshold(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="webhook-percent">Or at or below this percentage of the refill amount</label>
          <input
            id="webhook-percent"
            type="number"
            min={1}
            max={100}
            step={1}
            value={percent}
            onChange={(event) => setPercent(event.target.value)}
            aria-describedby="webhook-credits-hint"
          />
          <p id="webhook-credits-hint" className="hint">
            With both, the higher one counts. With neither, {DEFAULT_CREDITS_LOW_THRESHOLD} credits.
          </p>
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor="webhook-notice">Send key.expiring this many days before a key expires</label>
        <input
          id="webhook-notice"
          type="number"
          required
          min={0.001}
          max={365}
          step="any"
          value={noticeDays}
          onChange={(event) => setNoticeDays(event.target.value)}
        />
      </div>
      {endpoint ? null : (
        <label className="checkbox">
          <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
          Enabled: send events from now on
        </label>
      )}
    </FormDialog>
  );
}

function toggle<T>(list: readonly T[], value: T, on: boolean): T[] {
  return [...list.filter((item) => item !== value), ...(on ? [value] : [])];
}

const numberText = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
