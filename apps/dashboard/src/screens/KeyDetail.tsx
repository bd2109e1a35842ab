import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Ban, Eye, Pencil, Power, PowerOff, RefreshCw, Trash2 } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { useMissingPermission, useMissingPermissionCheck, useReadOnly } from '../access.ts';
import { verificationsQueryOptions } from '../analytics.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyableId, CopyButton } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { formatDuration, formatMeta, formatNumber, formatTime } from '../format.ts';
import { keyHealth } from '../keyHealth.ts';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { keyOutcomesQuery, toCount } from '../usageQueries.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { KeyEditDialog, type KeyPart, partPermissions } from './KeyEditDialogs.tsx';
import { KeyUsagePanel } from './KeyUsagePanel.tsx';
import { RerollKeyDialog } from './RerollKeyDialog.tsx';

type KeyData = RouterOutputs['keys']['getKey'];
type KeyAccess = RouterOutputs['keys']['getKeyAccess'];

interface KeyDetailProps {
  apiId: string;
  keyId: string;
}

const HOUR_MS = 3_600_000;

/** The key's verifications of the last hour by outcome, which say whether a limit refuses it now. */
function useRecentOutcomes(apiId: string, keyId: string) {
  const missing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_analytics' });
  // Minute buckets: the hour up to the minute the page opened.
  const [from] = useState(() => Math.floor((Date.now() - HOUR_MS) / 60_000) * 60_000);
  const recent = useQuery({
    ...verificationsQueryOptions(keyOutcomesQuery(from, apiId, keyId), { staleTime: 30_000 }),
    enabled: missing === undefined,
  });
  return recent.data ? new Map(recent.data.map((row) => [String(row.outcome), toCount(row.total)])) : undefined;
}

/**
 * A key at a glance: its status and what refuses it now at the top, then every part of it (credits,
 * limits, expiry, identity, roles, permissions, meta), each with its own edit dialog, then its usage.
 */
export function KeyDetail({ apiId, keyId }: KeyDetailProps) {
  const queryClient = useQueryClient();
  const key = useQuery(trpc.keys.getKey.queryOptions({ keyId }));
  const access = useQuery(trpc.keys.getKeyAccess.queryOptions({ keyId }));
  // The API's name for the breadcrumb, when the root key may read the API; its id otherwise.
  const mayReadApi = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_api' }) === undefined;
  const api = useQuery({ ...trpc.apis.getApi.queryOptions({ apiId }), enabled: mayReadApi });
  const recent = useRecentOutcomes(apiId, keyId);
  const [revealed, setRevealed] = useState(false);
  // The plaintext lives only while this page is open: gcTime 0 drops it from the cache on leaving.
  const plaintext = useQuery({
    ...trpc.keys.getKey.queryOptions({ keyId, decrypt: true }, { gcTime: 0, staleTime: 0 }),
    enabled: revealed,
  });
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [rerolling, setRerolling] = useState(false);
  const [rerolled, setRerolled] = useState<{ keyId: string; key: string } | null>(null);
  const [editing, setEditing] = useState<KeyPart | null>(null);

  const invalidateKeys = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.keys.getKey.pathKey() }),
      // The API's key lists and counts.
      queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() }),
    ]);
  const toggle = useMutation(trpc.keys.updateKey.mutationOptions({ onSuccess: invalidateKeys }));
  const remove = useMutation(
    trpc.keys.deleteKey.mutationOptions({
      onSuccess: () => {
        queryClient.removeQueries({ queryKey: trpc.keys.getKey.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
        navigate(`/apis/${apiId}`);
      },
    }),
  );

  const data = key.data;
  const health = data ? keyHealth(data, recent, Date.now()) : undefined;
  const updateMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'update_key' });
  const readOnly = useReadOnly();
  useDocumentTitle(data?.name ?? keyId, api.data?.name ?? apiId);

  return (
    <>
      <p className="breadcrumbs">
        <Link to="/apis">APIs</Link> / <Link to={`/apis/${apiId}`}>{api.data?.name ?? apiId}</Link> /{' '}
        <code>{keyId}</code>
      </p>
      <div className="page-header">
        <div className="title-with-status">
          <h1 tabIndex={-1}>{data?.name ?? 'Key'}</h1>
          {health ? <StatusBadge label={health.label} tone={health.tone} /> : null}
          {readOnly ? null : (
            <button
              type="button"
              className="icon ghost"
              aria-label="Rename key"
              title={updateMissing ?? 'Rename key'}
              disabled={!data || updateMissing !== undefined}
              onClick={() => setEditing('name')}
            >
              <Pencil size={14} aria-hidden="true" />
            </button>
          )}
        </div>
        <div className="row-actions">
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'update_key' }}
            disabled={!data || toggle.isPending}
            onClick={() => data && toggle.mutate({ keyId, enabled: !data.enabled })}
          >
            {data?.enabled === false ? (
              <Power size={16} aria-hidden="true" />
            ) : (
              <PowerOff size={16} aria-hidden="true" />
            )}
            {data?.enabled === false ? 'Enable key' : 'Disable key'}
          </PermittedButton>
          {/* A reroll creates the new key. */}
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
            disabled={!data}
            onClick={() => setRerolling(true)}
          >
            <RefreshCw size={16} aria-hidden="true" />
            Reroll key
          </PermittedButton>
          {/* Only a key stored encrypted can be shown again. */}
          {access.data?.recoverable ? (
            <PermittedButton
              permission={{ resourceType: 'api', resourceId: apiId, action: 'decrypt_key' }}
              disabled={!data}
              onClick={() => setRevealed(true)}
            >
              <Eye size={16} aria-hidden="true" />
              Reveal key
            </PermittedButton>
          ) : null}
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'delete_key' }}
            className="danger"
            disabled={!data}
            onClick={() => setConfirmingDelete(true)}
          >
            <Trash2 size={16} aria-hidden="true" />
            Delete key
          </PermittedButton>
        </div>
      </div>
      {toggle.error ? <ErrorMessage error={toggle.error} /> : null}
      {key.error ? <ErrorMessage error={key.error} onRetry={() => void key.refetch()} /> : null}
      {health && health.refusals.length > 0 ? (
        <section className="refusals" aria-label="What refuses this key">
          {health.refusals.map((refusal) => (
            <p key={refusal.title} className={refusal.tone === 'bad' ? 'refusal bad' : 'refusal'}>
              {refusal.tone === 'bad' ? (
                <Ban size={16} aria-hidden="true" className="text-danger" />
              ) : (
                <AlertTriangle size={16} aria-hidden="true" className="text-warning" />
              )}
              <span>
                <strong>{refusal.title}.</strong> {refusal.detail}
              </span>
            </p>
          ))}
        </section>
      ) : null}
      {rerolled ? (
        <SecretPanel
          title="Rerolled key"
          secret={rerolled.key}
          onDismiss={() => setRerolled(null)}
          extra={
            <p>
              The new key is <Link to={`/apis/${apiId}/keys/${rerolled.keyId}`}>{rerolled.keyId}</Link>.
            </p>
          }
        />
      ) : null}
      {revealed ? (
        <section className="panel" aria-labelledby="reveal-title">
          <h2 id="reveal-title">Key</h2>
          {plaintext.isPending ? <p role="status">Decrypting…</p> : null}
          {plaintext.error ? <ErrorMessage error={plaintext.error} onRetry={() => void plaintext.refetch()} /> : null}
          {plaintext.data?.plaintext ? (
            <code className="secret" data-testid="revealed-key">
              {plaintext.data.plaintext}
            </code>
          ) : null}
          <button type="button" onClick={() => setRevealed(false)}>
            Hide key
          </button>
        </section>
      ) : null}

      {key.isPending ? <BlockSkeleton height="16rem" /> : null}
      {updateMissing && data ? <p className="hint">Read only: {updateMissing}</p> : null}
      {data ? (
        <KeySummary apiId={apiId} keyData={data} access={access.data} accessQuery={access} onEdit={setEditing} />
      ) : null}
      {data ? <KeyUsagePanel keyId={keyId} apiId={apiId} /> : null}

      {editing && data && access.data ? (
        <KeyEditDialog
          part={editing}
          apiId={apiId}
          keyData={data}
          access={access.data}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {rerolling ? (
        <RerollKeyDialog
          keyId={keyId}
          apiId={apiId}
          keyStart={data?.start ?? ''}
          onClose={() => setRerolling(false)}
          onRerolled={(created) => {
            setRerolling(false);
            setRerolled(created);
            void invalidateKeys();
          }}
        />
      ) : null}
      <ConfirmDialog
        title="Delete key"
        open={confirmingDelete}
        confirmLabel="Delete key"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ keyId })}
        onClose={() => {
          setConfirmingDelete(false);
          remove.reset();
        }}
      >
        <p>
          Delete <strong>{data?.name ?? keyId}</strong>? It stops verifying at once.
        </p>
      </ConfirmDialog>
    </>
  );
}

interface KeySummaryProps {
  apiId: string;
  keyData: KeyData;
  access: KeyAccess | undefined;
  accessQuery: { error: Error | null; refetch: () => unknown };
  onEdit: (part: KeyPart) => void;
}

/** Every part of the key in a card, each with the button that edits it. */
function KeySummary({ apiId, keyData, access, accessQuery, onEdit }: KeySummaryProps) {
  const missingFor = useMissingPermissionCheck();
  const readOnly = useReadOnly();
  const card = (part: KeyPart | undefined, title: string, children: ReactNode) => {
    const missing = part ? missingFor(partPermissions(apiId, part)) : undefined;
    return (
      <section className="summary-card" aria-label={title}>
        <header>
          <h2>{title}</h2>
          {part && !(readOnly && missing) ? (
            <button
              type="button"
              className="sm ghost"
              aria-label={`Edit ${title.toLowerCase()}`}
              title={missing ?? `Edit ${title.toLowerCase()}`}
              disabled={missing !== undefined || (part !== 'name' && !access)}
              onClick={() => onEdit(part)}
            >
              <Pencil size={12} aria-hidden="true" />
              Edit
            </button>
          ) : null}
        </header>
        <div className="summary-value">{children}</div>
      </section>
    );
  };
  const credits = keyData.credits;
  const refill = credits?.refill;
  const none = <span className="text-muted">None</span>;
  return (
    <div className="summary-grid">
      {card(
        undefined,
        'Key',
        <dl className="facts">
          <dt>Key id</dt>
          <dd>
            <CopyableId id={keyData.keyId} />
          </dd>
          <dt>Starts with</dt>
          <dd>
            <code>{keyData.start}…</code>
          </dd>
          <dt>Created</dt>
          <dd title={formatTime(keyData.createdAt)}>
            <RelativeTime epochMs={keyData.createdAt} />
          </dd>
          <dt>Last used</dt>
          <dd>
            <RelativeTime epochMs={keyData.lastUsedAt} none="Never" />
          </dd>
        </dl>,
      )}
      {card(
        'credits',
        'Credits',
        credits === undefined || credits.remaining === null ? (
          <>
            Unlimited
            <p className="hint">Verifications spend no credits.</p>
          </>
        ) : (
          <>
            <span data-testid="credits-remaining">{formatNumber(credits.remaining)}</span> left
            <p className="hint">
              {refill
                ? `Refilled to ${formatNumber(refill.amount)} ${refill.interval}${refill.refillDay ? `, on day ${refill.refillDay}` : ''}.`
                : 'Never refilled.'}
            </p>
          </>
        ),
      )}
      {card(
        'ratelimits',
        'Rate limits',
        keyData.ratelimits && keyData.ratelimits.length > 0 ? (
          <ul className="plain">
            {keyData.ratelimits.map((limit) => (
              <li key={limit.name}>
                <code>{limit.name}</code>: {formatNumber(limit.limit)} per {formatDuration(limit.duration)}
                {limit.autoApply ? <span className="hint"> · every verification</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <>
            {none}
            {keyData.identity?.ratelimits?.length ? <p className="hint">Its identity’s limits apply.</p> : null}
          </>
        ),
      )}
      {card(
        'expiry',
        'Expiry',
        keyData.expires === undefined ? (
          'Never'
        ) : (
          <>
            <RelativeTime epochMs={keyData.expires} />
            <p className="hint">{formatTime(keyData.expires)}</p>
          </>
        ),
      )}
      {card(
        'identity',
        'Identity',
        keyData.identity ? (
          <>
            <Link to={`/identities/${keyData.identity.id}`}>{keyData.identity.externalId}</Link>
            <p className="hint">Shares its meta and rate limits with the identity’s other keys.</p>
          </>
        ) : (
          none
        ),
      )}
      {card(
        'roles',
        'Roles',
        access ? (
          access.roles.length > 0 ? (
            <ul className="chips">
              {access.roles.map((role) => (
                <li key={role}>{role}</li>
              ))}
            </ul>
          ) : (
            none
          )
        ) : accessQuery.error ? (
          <ErrorMessage error={accessQuery.error} onRetry={() => void accessQuery.refetch()} />
        ) : (
          <span className="skeleton" />
        ),
      )}
      {card(
        'permissions',
        'Permissions',
        access ? (
          <>
            {access.directPermissions.length > 0 ? (
              <ul className="chips" aria-label="Direct permissions">
                {access.directPermissions.map((slug) => (
                  <li key={slug}>
                    <code>{slug}</code>
                  </li>
                ))}
              </ul>
            ) : (
              none
            )}
            <PermissionsThroughRoles roles={access.roles} />
          </>
        ) : (
          <span className="skeleton" />
        ),
      )}
      {card(
        'meta',
        'Meta',
        keyData.meta ? (
          <div className="relative">
            <pre className="response-body">{formatMeta(keyData.meta)}</pre>
            <span className="absolute top-1 right-1">
              <CopyButton value={formatMeta(keyData.meta)} label="meta" />
            </span>
          </div>
        ) : (
          none
        ),
      )}
    </div>
  );
}

/** What the key's roles grant, changed by editing the roles themselves. */
function PermissionsThroughRoles({ roles }: { roles: string[] }) {
  const heldRoles = useQueries({
    queries: roles.map((role) => trpc.permissions.getRole.queryOptions({ role })),
  });
  const failedRole = heldRoles.find((role) => role.error);
  const slugs = new Set(heldRoles.flatMap((role) => role.data?.permissions.map(({ slug }) => slug) ?? []));
  if (roles.length === 0) return null;
  return (
    <>
      <h3 className="text-xs text-muted">Through roles</h3>
      {failedRole?.error ? <ErrorMessage error={failedRole.error} onRetry={() => void failedRole.refetch()} /> : null}
      {slugs.size === 0 && !heldRoles.some((role) => role.isPending) ? <p className="hint">None.</p> : null}
      <ul className="chips" aria-label="Permissions through roles">
        {[...slugs].sort().map((slug) => (
          <li key={slug}>
            <code>{slug}</code>
          </li>
        ))}
      </ul>
    </>
  );
}
