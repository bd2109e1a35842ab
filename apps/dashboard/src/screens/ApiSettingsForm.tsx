import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { SaveActions } from '../components/SaveActions.tsx';
import { useLeaveGuard } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';

type Api = RouterOutputs['apis']['getApi'];

/**
 * The API's settings; saving sends them all, reloads the API and then shows the saved values with
 * "Saved." (the form stays mounted across the reload, so the announcement survives it).
 */
export function ApiSettingsForm({ api }: { api: Api }) {
  const queryClient = useQueryClient();
  const draft = useDraft({
    name: api.name,
    keyAuth: api.keyAuth.enabled,
    encryption: api.encryption.enabled,
    defaultPrefix: api.defaultPrefix ?? '',
    defaultBytes: api.defaultBytes === null ? '' : String(api.defaultBytes),
    deleteProtection: api.deleteProtection,
  });
  const { values } = draft;
  useLeaveGuard(draft.edited);
  const missing = useMissingPermission({ resourceType: 'api', resourceId: api.id, action: 'update_api' });
  const missingId = useId();
  const update = useMutation(
    trpc.apis.updateApi.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
        draft.discard();
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({
      apiId: api.id,
      name: values.name.trim(),
      keyAuth: { enabled: values.keyAuth },
      encryption: { enabled: values.encryption },
      defaultPrefix: values.defaultPrefix.trim() || null,
      defaultBytes: values.defaultBytes === '' ? null : Number(values.defaultBytes),
      deleteProtection: values.deleteProtection,
    });
  };

  return (
    <form onSubmit={submit} className="stack max-w-2xl" aria-describedby={missing ? missingId : undefined}>
      {missing ? (
        <p id={missingId} className="hint">
          Read only: {missing}
        </p>
      ) : null}
      <fieldset className="plain" disabled={missing !== undefined}>
        <div className="field">
          <label htmlFor="api-settings-name">Name</label>
          <input
            id="api-settings-name"
            required
            minLength={3}
            maxLength={255}
            value={values.name}
            onChange={(event) => draft.edit({ name: event.target.value })}
          />
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={values.keyAuth}
            onChange={(event) => draft.edit({ keyAuth: event.target.checked })}
          />
          Key authentication enabled
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={values.encryption}
            onChange={(event) => draft.edit({ encryption: event.target.checked })}
          />
          Encryption enabled (allows recoverable keys)
        </label>
        <div className="field">
          <label htmlFor="api-settings-prefix">Default key prefix</label>
          <input
            id="api-settings-prefix"
            pattern="[a-zA-Z0-9_]{1,16}"
            maxLength={16}
            value={values.defaultPrefix}
            onChange={(event) => draft.edit({ defaultPrefix: event.target.value })}
            aria-describedby="api-settings-prefix-hint"
          />
          <p id="api-settings-prefix-hint" className="hint">
            Letters, digits and underscores; empty for none.
          </p>
        </div>
        <div className="field">
          <label htmlFor="api-settings-bytes">Default key length in bytes</label>
          <input
            id="api-settings-bytes"
            type="number"
            min={16}
            max={255}
            value={values.defaultBytes}
            onChange={(event) => draft.edit({ defaultBytes: event.target.value })}
          />
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={values.deleteProtection}
            onChange={(event) => draft.edit({ deleteProtection: event.target.checked })}
          />
          Delete protection
        </label>
        <SaveActions label="Save settings" mutation={update} draft={draft} />
      </fieldset>
    </form>
  );
}
