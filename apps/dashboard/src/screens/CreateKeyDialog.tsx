import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CreditsFields, type CreditsValues, toCreditsInput, toCreditsValues } from '../components/CreditsFields.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ExternalIdField } from '../components/ExternalIdField.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { type RatelimitRow, RatelimitsEditor } from '../components/RatelimitsEditor.tsx';
import { PermissionChecklist, RoleChecklist } from '../components/RbacChecklists.tsx';
import { SecretPanel } from '../components/SecretPanel.tsx';
import { parseLocalDateTime } from '../format.ts';
import { navigate } from '../router.tsx';
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
function createKeyCredits(credits: CreditsValues) {
  if (!credits.limited) return undefined;
  const { remaining, refill } = toCreditsInput(credits);
  return { remaining, ...(refill ? { refill } : {}) };
}

/**
 * Every field keys.createKey takes. The secret is shown once in the dialog; once the user has
 * taken it, the dialog opens the new key's page.
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
      credits: createKeyCredits(form.credits),
      ratelimits: form.ratelimits.length > 0 ? form.ratelimits : undefined,
      enabled: form.enabled,
      recoverable: encrypts && form.recoverable,
    });
  };

  if (created) {
    return (
      <Dialog title="Key created" open={open} onClose={close}>
        <SecretPanel
          title="New key"
          secret={created.key}
          doneLabel="Done: open the key"
          onDismiss={() => {
            close();
            navigate(`/apis/${apiId}/keys/${created.keyId}`);
          }}
        />
      </Dialog>
    );
  }
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
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          maxLength={255}
          value={form.name}
          onChange={(event) => edit({ name: event.target.value })}
        />
      </div>
      <div className="inline-form">
        <div className="field">
          <label htmlFor={`${id}-prefix`}>Prefix</label>
          <input
            id={`${id}-prefix`}
            pattern="[a-zA-Z0-9_]{1,16}"
            maxLength={16}
            placeholder={api.data?.defaultPrefix ?? undefined}
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
          />
        </div>
      </div>
      <ExternalIdField
        value={form.externalId}
        onChange={(externalId) => edit({ externalId })}
        hint="Your id for the customer; keys with the same external id share an identity (created if new)."
      />
      <div className="field">
        <label htmlFor={`${id}-expires`}>Expires</label>
        <input
          id={`${id}-expires`}
          type="datetime-local"
          value={form.expires}
          onChange={(event) => edit({ expires: event.target.value })}
          aria-describedby={`${id}-expires-hint`}
        />
        <p id={`${id}-expires-hint`} className="hint">
          Empty: never.
        </p>
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
      <CreditsFields values={form.credits} onChange={(change) => edit({ credits: { ...form.credits, ...change } })} />
      <RatelimitsEditor rows={form.ratelimits} onChange={(ratelimits) => edit({ ratelimits })} />
      <RoleChecklist legend="Roles" selected={form.roles} onChange={(roles) => edit({ roles })} />
      <PermissionChecklist
        legend="Permissions"
        selected={form.permissions}
        onChange={(permissions) => edit({ permissions })}
      />
      <MetaField id={`${id}-meta`} value={form.meta} onChange={(meta) => edit({ meta })} problem={metaCheck.problem} />
    </FormDialog>
  );
}
