import { type FormEvent, useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { formatMeta, parseLocalDateTime, toLocalDateTime } from '../format.ts';
import type { RouterOutputs } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';
import { useKeyUpdate } from './useKeyUpdate.ts';

interface KeySettingsFormProps {
  apiId: string;
  keyData: RouterOutputs['keys']['getKey'];
  /** Reloads the key; the form shows the saved values once it resolves. */
  onSaved: () => Promise<unknown>;
}

/** Name, meta and expiry; an empty field clears its value (updateKey treats null as "clear"). */
export function KeySettingsForm({ apiId, keyData, onSaved }: KeySettingsFormProps) {
  const draft = useDraft({
    name: keyData.name ?? '',
    meta: formatMeta(keyData.meta),
    expires: keyData.expires === undefined ? '' : toLocalDateTime(keyData.expires),
  });
  const metaCheck = useMetaCheck();
  const update = useKeyUpdate(onSaved, draft.discard);
  const missing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'update_key' });
  const missingId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const meta = metaCheck.check(draft.values.meta);
    if (meta === undefined) return;
    update.mutate({
      keyId: keyData.keyId,
      name: draft.values.name.trim() || null,
      meta,
      expires: parseLocalDateTime(draft.values.expires) ?? null,
    });
  };

  return (
    <form onSubmit={submit} className="stack" aria-describedby={missing ? missingId : undefined}>
      {missing ? (
        <p id={missingId} className="hint">
          Read only: {missing}
        </p>
      ) : null}
      <fieldset className="plain" disabled={missing !== undefined}>
        <div className="field">
          <label htmlFor="key-settings-name">Name</label>
          <input
            id="key-settings-name"
            maxLength={255}
            value={draft.values.name}
            onChange={(event) => draft.edit({ name: event.target.value })}
            aria-describedby="key-settings-name-hint"
          />
          <p id="key-settings-name-hint" className="hint">
            Empty for none.
          </p>
        </div>
        <MetaField
          id="key-settings-meta"
          value={draft.values.meta}
          onChange={(meta) => draft.edit({ meta })}
          problem={metaCheck.problem}
        />
        <div className="field">
          <label htmlFor="key-settings-expires">Expires at</label>
          <div className="inline-form">
            <input
              id="key-settings-expires"
              type="datetime-local"
              value={draft.values.expires}
              onChange={(event) => draft.edit({ expires: event.target.value })}
              aria-describedby="key-settings-expires-hint"
            />
            <button type="button" onClick={() => draft.edit({ expires: '' })} disabled={draft.values.expires === ''}>
              Never expires
            </button>
          </div>
          <p id="key-settings-expires-hint" className="hint">
            Empty: the key never expires. A past time makes it stop working at once.
          </p>
        </div>
        <SaveActions label="Save settings" mutation={update} draft={draft} />
      </fieldset>
    </form>
  );
}
