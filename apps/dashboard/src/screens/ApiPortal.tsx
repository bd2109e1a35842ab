import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ExternalLink, Trash2 } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyableId } from '../components/CopyButton.tsx';
import { CreditsFields, toCreditsValues, toNewKeyCredits } from '../components/CreditsFields.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { FormSection } from '../components/FormSection.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton, TableSkeletonRows } from '../components/Skeleton.tsx';
import { formatCount } from '../format.ts';
import { useLeaveGuard } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';

type Portal = RouterOutputs['portal']['getPortal'];
type PortalSession = RouterOutputs['portal']['listSessions']['data'][number];

/** The scopes a session may hand a customer (docs/portal.md#scopes), in the order people read them. */
const SCOPES = [
  ['keys:read', 'See their keys'],
  ['keys:create', 'Create keys'],
  ['keys:reroll', 'Roll keys'],
  ['keys:update', 'Rename keys'],
  ['keys:delete', 'Delete keys'],
  ['analytics:read', 'See usage'],
] as const;

type Scope = (typeof SCOPES)[number][0];

/**
 * An API's customer portal (docs/portal.md): its settings and the policy of keys customers create,
 * a preview as one of the customers, and the customers' sessions, which can be ended.
 */
export function ApiPortal({ apiId }: { apiId: string }) {
  const portals = useQuery(trpc.portal.listPortals.queryOptions({ apiId, limit: 1 }));
  const portal = portals.data?.data[0];
  return (
    <div className="stack">
      <section aria-labelledby="portal-settings-title" className="panel">
        <h2 id="portal-settings-title">Customer portal</h2>
        <p className="hint">
          A page at <code>/portal/</code> where your customers create, roll, rename and delete their own keys of this
          API and see their usage. Your backend opens it for a signed-in customer with <code>portal.createSession</code>
          .
        </p>
        {portals.isPending ? <BlockSkeleton height="24rem" /> : null}
        {portals.error ? <ErrorMessage error={portals.error} onRetry={() => void portals.refetch()} /> : null}
        {portals.data ? <PortalSettingsForm key={portal?.portalId ?? 'new'} apiId={apiId} portal={portal} /> : null}
      </section>
      {portal ? <PortalPreview portal={portal} /> : null}
      {portal ? <PortalSessions portal={portal} /> : null}
      {portal ? <PortalDeletion portal={portal} /> : null}
    </div>
  );
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The form's text for an optional number: '' for none. */
const numberText = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
const DAY_MS = 86_400_000;

function PortalSettingsForm({ apiId, portal }: { apiId: string; portal: Portal | undefined }) {
  const queryClient = useQueryClient();
  const policy = portal?.keyPolicy;
  const draft = useDraft({
    displayName: portal?.displayName ?? '',
    slug: portal?.slug ?? '',
    logoUrl: portal?.logoUrl ?? '',
    primaryColor: portal?.primaryColor ?? '',
    supportUrl: portal?.supportUrl ?? '',
    enabled: portal?.enabled ?? true,
    prefix: policy?.prefix ?? '',
    byteLength: numberText(policy?.byteLength),
    credits: toCreditsValues(policy?.credits),
    ratelimits: toRatelimitRows(policy?.ratelimits),
    maxKeysPerCustomer: numberText(policy?.maxKeysPerCustomer),
    lifetimeDays: policy?.maxLifetimeMs === undefined ? '' : String(Math.round(policy.maxLifetimeMs / DAY_MS)),
  });
  const { values } = draft;
  useLeaveGuard(draft.edited);
  const id = useId();
  const permission = portal
    ? ({ resourceType: 'portal', resourceId: portal.portalId, action: 'update_portal' } as const)
    : ({ resourceType: 'portal', resourceId: '*', action: 'create_portal' } as const);
  const missing = useMissingPermission(permission);
  const onSaved = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.portal.pathKey() });
    draft.discard();
  };
  const create = useMutation(trpc.portal.createPortal.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.portal.updatePortal.mutationOptions({ onSuccess: onSaved }));
  const save = portal ? update : create;
  const colourProblem =
    values.primaryColor !== '' && !HEX_COLOUR.test(values.primaryColor)
      ? 'A hex colour such as #1a2b3c, or empty for the page’s own.'
      : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (colourProblem) return;
    const optionalNumber = (text: string) => (text.trim() === '' ? undefined : Number(text));
    const lifetimeDays = optionalNumber(values.lifetimeDays);
    const keyPolicy = {
      prefix: values.prefix.trim() || undefined,
      byteLength: optionalNumber(values.byteLength),
      credits: toNewKeyCredits(values.credits),
      ratelimits: values.ratelimits.length > 0 ? values.ratelimits : undefined,
      maxKeysPerCustomer: optionalNumber(values.maxKeysPerCustomer),
      maxLifetimeMs: lifetimeDays === undefined ? undefined : lifetimeDays * DAY_MS,
    };
    const fields = {
      displayName: values.displayName.trim(),
      slug: values.slug.trim() || undefined,
      enabled: values.enabled,
      keyPolicy,
    };
    if (portal) {
      update.mutate({
        portalId: portal.portalId,
        ...fields,
        logoUrl: values.logoUrl.trim() || null,
        primaryColor: values.primaryColor.trim() || null,
        supportUrl: values.supportUrl.trim() || null,
      });
    } else {
      create.mutate({
        apiId,
        ...fields,
        logoUrl: values.logoUrl.trim() || undefined,
        primaryColor: values.primaryColor.trim() || undefined,
        supportUrl: values.supportUrl.trim() || undefined,
      });
    }
  };

  return (
    <form onSubmit={submit} className="stack max-w-2xl" aria-describedby={missing ? `${id}-missing` : undefined}>
      {portal ? (
        <p className="hint">
          Portal <CopyableId id={portal.portalId} />
        </p>
      ) : (
        <p>This API has no customer portal yet. Fill in how it looks to your customers and create it.</p>
      )}
      {missing ? (
        <p id={`${id}-missing`} className="hint">
          Read only: {missing}
        </p>
      ) : null}
      <fieldset className="plain" disabled={missing !== undefined}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Display name</label>
          <input
            id={`${id}-name`}
            required
            maxLength={255}
            value={values.displayName}
            onChange={(event) => draft.edit({ displayName: event.target.value })}
            aria-describedby={`${id}-name-hint`}
          />
          <p id={`${id}-name-hint`} className="hint">
            Your product’s name, as your customers know it.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-slug`}>Slug</label>
          <input
            id={`${id}-slug`}
            pattern="[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?"
            minLength={3}
            maxLength={64}
            value={values.slug}
            onChange={(event) => draft.edit({ slug: event.target.value })}
            aria-describedby={`${id}-slug-hint`}
          />
          <p id={`${id}-slug-hint`} className="hint">
            Lower-case letters, digits and hyphens; made from the display name when empty.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-logo`}>Logo URL</label>
          <input
            id={`${id}-logo`}
            type="url"
            pattern="https://.*"
            maxLength={2048}
            placeholder="https://"
            value={values.logoUrl}
            onChange={(event) => draft.edit({ logoUrl: event.target.value })}
            aria-describedby={`${id}-logo-hint`}
          />
          <p id={`${id}-logo-hint`} className="hint">
            An <code>https://</code> address of an image; the portal shows it at 32 px high.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-colour`}>Primary colour</label>
          <div className="flex items-center gap-2">
            <input
              id={`${id}-colour`}
              className="max-w-40"
              placeholder="#2743d0"
              maxLength={7}
              value={values.primaryColor}
              onChange={(event) => draft.edit({ primaryColor: event.target.value })}
              aria-invalid={colourProblem ? true : undefined}
              aria-describedby={`${id}-colour-hint`}
            />
            <input
              type="color"
              aria-label="Pick the primary colour"
              className="h-10 w-12 p-1"
              value={HEX_COLOUR.test(values.primaryColor) ? values.primaryColor : '#2743d0'}
              onChange={(event) => draft.edit({ primaryColor: event.target.value })}
            />
          </div>
          <p id={`${id}-colour-hint`} className={colourProblem ? 'field-error' : 'hint'}>
            {colourProblem ?? 'A hex colour for the portal’s header and buttons; empty for the page’s own.'}
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-support`}>Support link</label>
          <input
            id={`${id}-support`}
            type="url"
            pattern="https://.*"
            maxLength={2048}
            placeholder="https://"
            value={values.supportUrl}
            onChange={(event) => draft.edit({ supportUrl: event.target.value })}
          />
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={values.enabled}
            onChange={(event) => draft.edit({ enabled: event.target.checked })}
          />
          Enabled (turning it off ends every customer’s session at once)
        </label>
        <FormSection
          title="Keys your customers create"
          description="What every key made in the portal gets; each customer's own keys only."
        >
          <div className="form-row">
            <div className="field">
              <label htmlFor={`${id}-prefix`}>Key prefix</label>
              <input
                id={`${id}-prefix`}
                pattern="[a-zA-Z0-9_]{1,16}"
                maxLength={16}
                value={values.prefix}
                onChange={(event) => draft.edit({ prefix: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-bytes`}>Key length in bytes</label>
              <input
                id={`${id}-bytes`}
                type="number"
                min={16}
                max={255}
                value={values.byteLength}
                onChange={(event) => draft.edit({ byteLength: event.target.value })}
              />
            </div>
          </div>
          <div className="form-row">
            <div className="field">
              <label htmlFor={`${id}-max-keys`}>Most keys per customer</label>
              <input
                id={`${id}-max-keys`}
                type="number"
                min={1}
                max={1000}
                value={values.maxKeysPerCustomer}
                onChange={(event) => draft.edit({ maxKeysPerCustomer: event.target.value })}
                aria-describedby={`${id}-max-keys-hint`}
              />
              <p id={`${id}-max-keys-hint`} className="hint">
                Empty for no limit.
              </p>
            </div>
            <div className="field">
              <label htmlFor={`${id}-lifetime`}>Keys expire after (days)</label>
              <input
                id={`${id}-lifetime`}
                type="number"
                min={1}
                value={values.lifetimeDays}
                onChange={(event) => draft.edit({ lifetimeDays: event.target.value })}
                aria-describedby={`${id}-lifetime-hint`}
              />
              <p id={`${id}-lifetime-hint`} className="hint">
                Empty for never.
              </p>
            </div>
          </div>
          <CreditsFields
            values={values.credits}
            onChange={(change) => draft.edit({ credits: { ...values.credits, ...change } })}
          />
          <RatelimitsEditor rows={values.ratelimits} onChange={(ratelimits) => draft.edit({ ratelimits })} />
        </FormSection>
        <SaveActions
          label={portal ? 'Save portal' : 'Create portal'}
          mutation={save}
          draft={draft}
          permission={permission}
        />
      </fieldset>
    </form>
  );
}

/** Opens the portal as one of the provider's customers would see it, in a new tab. */
function PortalPreview({ portal }: { portal: Portal }) {
  const id = useId();
  const [externalId, setExternalId] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(SCOPES.map(([scope]) => scope));
  const preview = useMutation(
    trpc.portal.createSession.mutationOptions({
      onSuccess: ({ url }) => {
        window.open(url, '_blank', 'noopener');
      },
    }),
  );
  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((chosen) => chosen !== scope)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate({ portal: portal.portalId, externalId: externalId.trim(), scopes, preview: true });
  };
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Preview as a customer</h2>
      <p className="hint">
        Opens the portal in a new tab as this customer sees it, with the keys of their identity. What you do there
        happens to their keys.
      </p>
      {portal.enabled ? null : <p className="warning">The portal is turned off: turn it on to preview it.</p>}
      <form onSubmit={submit} className="stack max-w-2xl">
        <div className="field">
          <label htmlFor={`${id}-external`}>Customer (their externalId)</label>
          <input
            id={`${id}-external`}
            required
            maxLength={255}
            value={externalId}
            onChange={(event) => setExternalId(event.target.value)}
          />
        </div>
        <fieldset className="plain">
          <legend className="field-label">What the customer may do</legend>
          <div className="checkbox-grid">
            {SCOPES.map(([scope, label]) => (
              <label key={scope} className="checkbox">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) => toggle(scope, event.target.checked)}
                />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        {preview.error ? <ErrorMessage error={preview.error} /> : null}
        <div className="actions">
          <PermittedButton
            type="submit"
            className="primary"
            permission={{ resourceType: 'portal', resourceId: portal.portalId, action: 'create_portal_session' }}
            disabled={preview.isPending || scopes.length === 0 || !portal.enabled}
          >
            <ExternalLink size={16} aria-hidden="true" />
            {preview.isPending ? 'Opening…' : 'Preview as this customer'}
          </PermittedButton>
        </div>
      </form>
    </section>
  );
}

/** What a session is now: waiting for its code to be used, open, or over. */
function sessionState(session: PortalSession, now: number): { label: string; tone: string } {
  if (session.revokedAt !== null) return { label: 'Revoked', tone: 'muted' };
  if (session.expiresAt <= now) return { label: 'Expired', tone: 'muted' };
  if (session.exchangedAt === null) return { label: 'Link not opened', tone: 'info' };
  return { label: 'Active', tone: 'good' };
}

/** The portal's sessions, newest first; ending a customer's sessions asks first. */
function PortalSessions({ portal }: { portal: Portal }) {
  const queryClient = useQueryClient();
  const id = useId();
  const sessions = useQuery(trpc.portal.listSessions.queryOptions({ portal: portal.portalId, limit: 100 }));
  const [revoking, setRevoking] = useState<string | undefined>();
  const revoke = useMutation(
    trpc.portal.revokeSession.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.portal.listSessions.pathKey() });
        setRevoking(undefined);
      },
    }),
  );
  const now = Date.now();
  const rows = [...(sessions.data?.data ?? [])].sort((a, b) => b.createdAt - a.createdAt);
  // One Revoke per customer with a session not yet ended, on their newest row.
  const revocable = new Set<string>();
  for (const session of rows) {
    const { label } = sessionState(session, now);
    if (label === 'Active' || label === 'Link not opened') revocable.add(session.externalId);
  }
  const offered = new Set<string>();
  const offerRevoke = (externalId: string) => {
    if (!revocable.has(externalId) || offered.has(externalId)) return false;
    offered.add(externalId);
    return true;
  };
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Customer sessions</h2>
      <p className="hint">
        Each time your backend opens the portal for a customer, a session starts; it lasts 24 hours from when they open
        the link. Revoking ends every session of that customer on every node at once.
      </p>
      {sessions.error ? <ErrorMessage error={sessions.error} onRetry={() => void sessions.refetch()} /> : null}
      <p className="table-total" role="status">
        {sessions.data ? formatCount(rows.length, 'session') : '\u00a0'}
      </p>
      <div className="table-wrap cards">
        <table>
          <caption className="visually-hidden">Sessions of this portal, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Customer</th>
              <th scope="col">State</th>
              <th scope="col">Scopes</th>
              <th scope="col">Started</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.isPending ? <TableSkeletonRows columns={5} rows={2} /> : null}
            {sessions.data && rows.length === 0 ? (
              <tr>
                <td colSpan={5} data-phone="bare">
                  No sessions yet. Preview the portal, or open it from your backend, to see one.
                </td>
              </tr>
            ) : null}
            {rows.map((session) => {
              const state = sessionState(session, now);
              return (
                <tr key={session.id}>
                  <th scope="row">
                    <code>{session.externalId}</code>
                    {session.preview ? <span className="badge info ml-2">Preview</span> : null}
                  </th>
                  <td data-phone="badge">
                    <span className={`badge ${state.tone}`}>{state.label}</span>
                  </td>
                  <td data-label="Scopes">{session.scopes.join(', ')}</td>
                  <td data-label="Started">
                    <RelativeTime epochMs={session.createdAt} />
                  </td>
                  <td data-phone="bare">
                    {offerRevoke(session.externalId) ? (
                      <PermittedButton
                        className="danger"
                        permission={{
                          resourceType: 'portal',
                          resourceId: portal.portalId,
                          action: 'revoke_portal_session',
                        }}
                        onClick={() => setRevoking(session.externalId)}
                        aria-label={`Revoke the sessions of ${session.externalId}`}
                      >
                        Revoke
                      </PermittedButton>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        title="Revoke this customer’s sessions?"
        open={revoking !== undefined}
        confirmLabel="Revoke sessions"
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoking && revoke.mutate({ portal: portal.portalId, externalId: revoking })}
        onClose={() => {
          setRevoking(undefined);
          revoke.reset();
        }}
      >
        <p>
          Every portal session of <strong>{revoking}</strong> ends at once: their open portal page shows that the
          session ended. Their keys keep working. Your backend can open a new session for them at any time.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Deleting the portal, after asking: its sessions end at once, its customers' keys stay. */
function PortalDeletion({ portal }: { portal: Portal }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(
    trpc.portal.deletePortal.mutationOptions({
      onSuccess: async () => {
        // The tab goes back to the form that creates a portal.
        await queryClient.invalidateQueries({ queryKey: trpc.portal.pathKey() });
        setDeleting(false);
      },
    }),
  );
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Delete the portal</h2>
      <p className="hint">
        Ends every customer’s session at once and removes the portal’s settings. The keys your customers made stay and
        keep working.
      </p>
      <div className="actions">
        <PermittedButton
          className="danger"
          permission={{ resourceType: 'portal', resourceId: portal.portalId, action: 'delete_portal' }}
          onClick={() => setDeleting(true)}
        >
          <Trash2 size={16} aria-hidden="true" />
          Delete portal
        </PermittedButton>
      </div>
      <ConfirmDialog
        title="Delete this portal?"
        open={deleting}
        confirmLabel="Delete portal"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ portalId: portal.portalId })}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>
          Delete the portal <strong>{portal.displayName}</strong>? Every customer’s open portal page shows that the
          session ended, and your backend can no longer open sessions for it. Their keys keep working.
        </p>
      </ConfirmDialog>
    </section>
  );
}
