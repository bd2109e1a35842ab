import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CodeSnippets, verifySnippets } from '../components/CodeSnippets.tsx';
import { CreditsFields, type CreditsValues, toCreditsValues, toNewKeyCredits } from '../components/CreditsFields.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ExternalIdField } from '../components/ExternalIdField.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { FormSection } from '../components/FormSection.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { type RatelimitRow, RatelimitsEditor } from '../components/RatelimitsEditor.tsx';
import { PermissionChecklist, RoleChecklist } from '../components/RbacChecklists.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { formatTime, parseLocalDateTime, toLocalDateTime } from '../format.ts';
import { Link, navigate, useLeaveGuard } from '../router.tsx';
import { trpc } from '../trpc.ts';

interface CreateKeyDialogProps {
  apiId: string;
  open: boolean;
  onClose: () => void;
}

const EMPTY_FORM = {
  name: '',
  prefix: '',
  byteLength: '',
  externalId: '',
  meta: '',
  expires: '',
  enabled: true,
  recoverable: false,
  credits: toCreditsValues(undefined) as CreditsValues,
  ratelimits: [] as RatelimitRow[],
  roles: [] as string[],
  permissions: [] as string[],
};

type Form = typeof EMPTY_FORM;

/** Only what was filled in: the API's defaults apply to the rest. */
const DAY_MS = 86_400_000;

/**
 * Every field keys.createKey takes, in sections (the key, who it is for, its limits, its expiry,
 * its access, meta), with the Create button in a footer that stays in view. Nothing but the
 * name is needed: a new key is enabled, unlimited and never expires. The secret is shown once, with
 * how to verify it; once the user has taken it, the dialog opens the new key's page.
 */
export function CreateKeyDialog({ apiId, open, onClose }: CreateKeyDialogProps) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(EMPTY_FORM);
  const [created, setCreated] = useState<{ keyId: string; key: string } | null>(null);
  const metaCheck = useMetaCheck();
  const api = useQuery({ ...trpc.apis.getApi.queryOptions({ apiId }), enabled: open });
  const encrypts = api.data?.encryption.enabled === true;
  const id = useId();
  const create = useMutation(
    trpc.keys.createKey.mutationOptions({
      onSuccess: (answer) => {
        setCreated(answer);
        return queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
      },
    }),
  );
  const edit = (change: Partial<Form>) => setForm((current) => ({ ...current, ...change }));
  // What was typed is not lost to a stray Back or a closed tab; once the key is made there is nothing to lose.
  useLeaveGuard(open && created === null && JSON.stringify(form) !== JSON.stringify(EMPTY_FORM));

  const close = () => {
    setForm(EMPTY_FORM);
    setCreated(null);
    create.reset();
    onClose();
  };

  const submit = () => {
    const meta = metaCheck.check(form.meta);
    if (meta === undefined) return;
    create.mutate({
      apiId,
      name: form.name.trim() || undefined,
      prefix: form.prefix.trim() || undefined,
      byteLength: form.byteLength === '' ? undefined : Number(form.byteLength),
      externalId: form.externalId.trim() || undefined,
      meta: meta ?? undefined,
      roles: form.roles.length > 0 ? form.roles : undefined,
      permissions: form.permissions.length > 0 ? form.permissions : undefined,
      expires: parseLocalDateTime(form.expires),
      credits: toNewKeyCredits(form.credits),
      ratelimits: form.ratelimits.length > 0 ? form.ratelimits : undefined,
      enabled: form.enabled,
      recoverable: encrypts && form.recoverable,
    });
  };

  if (created) {
    return (
      <Dialog title="Key created" open={open} onClose={close} wide>
        <div className="dialog-body">
          <SecretPanel
            title="New key"
            secret={created.key}
            doneLabel="Done: open the key"
            onDismiss={() => {
              close();
              navigate(`/apis/${apiId}/keys/${created.keyId}`);
            }}
            extra={
              <section aria-labelledby={`${id}-verify`} className="mt-3">
                <h3 id={`${id}-verify`}>Verify it from your backend</h3>
                <p className="hint">
                  Your API checks each request’s key like this. It needs a root key with{' '}
                  <code>api.{apiId}.verify_key</code> in <code>KEYPLANE_ROOT_KEY</code> (make one under{' '}
                  <Link to="/root-keys" onClick={close}>
                    Root keys
                  </Link>
                  ). The answer says whether the key is <code>valid</code>, and if not, why (<code>code</code>).
                </p>
                <CodeSnippets label="Verify the key in" snippets={verifySnippets(created.key)} />
              </section>
            }
          />
        </div>
      </Dialog>
    );
  }
  const expiresAt = parseLocalDateTime(form.expires);
  return (
    <FormDialog
      title="Create key"
      open={open}
      onClose={close}
      onSubmit={submit}
      submitLabel={create.isPending ? 'Creating…' : 'Create'}
      mutation={create}
      permission={[
        { resourceType: 'api', resourceId: apiId, action: 'create_key' },
        ...(encrypts && form.recoverable
          ? [{ resourceType: 'api', resourceId: apiId, action: 'encrypt_key' } as const]
          : []),
      ]}
      wide
    >
      <FormSection title="Key" description="What you call it, and what it looks like.">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            maxLength={255}
            placeholder="acme-production"
            value={form.name}
            onChange={(event) => edit({ name: event.target.value })}
            aria-describedby={`${id}-name-hint`}
          />
          <p id={`${id}-name-hint`} className="hint">
            For you and your team; your customer never sees it.
          </p>
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor={`${id}-prefix`}>Prefix</label>
            <input
              id={`${id}-prefix`}
              pattern="[a-zA-Z0-9_]{1,16}"
              maxLength={16}
              placeholder={api.data?.defaultPrefix ?? 'none'}
              value={form.prefix}
              onChange={(event) => edit({ prefix: event.target.value })}
              aria-describedby={`${id}-prefix-hint`}
            />
            <p id={`${id}-prefix-hint`} className="hint">
              Empty: the API’s default{api.data?.defaultPrefix ? ` (${api.data.defaultPrefix})` : ''}.
            </p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-bytes`}>Length in bytes</label>
            <input
              id={`${id}-bytes`}
              type="number"
              min={16}
              max={255}
              placeholder={String(api.data?.defaultBytes ?? 16)}
              value={form.byteLength}
              onChange={(event) => edit({ byteLength: event.target.value })}
              aria-describedby={`${id}-bytes-hint`}
            />
            <p id={`${id}-bytes-hint`} className="hint">
              16 to 255; empty: {api.data?.defaultBytes ?? 16}.
            </p>
          </div>
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={form.enabled} onChange={(event) => edit({ enabled: event.target.checked })} />
          Enabled (verifies from the start)
        </label>
        {encrypts ? (
          <label className="checkbox">
            <input
              type="checkbox"
              checked={form.recoverable}
              onChange={(event) => edit({ recoverable: event.target.checked })}
            />
            Recoverable (stored encrypted, can be revealed later)
          </label>
        ) : (
          <p className="hint">
            Keys of this API cannot be recoverable: it does not store keys encrypted (its settings can turn that on).
          </p>
        )}
      </FormSection>
      <FormSection title="Owner" description="The customer it belongs to. Their keys share meta and limits.">
        <ExternalIdField
          value={form.externalId}
          onChange={(externalId) => edit({ externalId })}
          hint="Your id for the customer; keys with the same external id share an identity (created if new)."
        />
      </FormSection>
      <FormSection title="Limits" description="Unlimited and unthrottled unless you say otherwise.">
        <CreditsFields values={form.credits} onChange={(change) => edit({ credits: { ...form.credits, ...change } })} />
        <RatelimitsEditor rows={form.ratelimits} onChange={(ratelimits) => edit({ ratelimits })} />
      </FormSection>
      <FormSection title="Expiry" description="When it stops working by itself; never, unless set.">
        <div className="field">
          <label htmlFor={`${id}-expires`}>Expires</label>
          <div className="actions">
            <input
              id={`${id}-expires`}
              type="datetime-local"
              value={form.expires}
              onChange={(event) => edit({ expires: event.target.value })}
              aria-describedby={`${id}-expires-hint`}
            />
            {[7, 30, 90].map((days) => (
              <button
                key={days}
                type="button"
                className="sm"
                onClick={() => edit({ expires: toLocalDateTime(Date.now() + days * DAY_MS) })}
              >
                {days} days
              </button>
            ))}
            <button type="button" className="sm ghost" onClick={() => edit({ expires: '' })} disabled={!form.expires}>
              Never
            </button>
          </div>
          <p id={`${id}-expires-hint`} className="hint">
            {expiresAt === undefined ? 'Empty: never.' : `Stops verifying ${formatTime(expiresAt)}.`}
          </p>
        </div>
      </FormSection>
      <FormSection title="Access" description="The permissions your API checks, directly or through roles.">
        <RoleChecklist legend="Roles" selected={form.roles} onChange={(roles) => edit({ roles })} />
        <PermissionChecklist
          legend="Permissions"
          selected={form.permissions}
          onChange={(permissions) => edit({ permissions })}
        />
      </FormSection>
      <FormSection title="Meta" description="Any JSON your API reads back on every verification.">
        <MetaField
          id={`${id}-meta`}
          value={form.meta}
          onChange={(meta) => edit({ meta })}
          problem={metaCheck.problem}
        />
      </FormSection>
    </FormDialog>
  );
}
