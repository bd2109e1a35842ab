import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Api = RouterOutputs['apis']['getApi'];

/** The API's settings as loaded; saving sends them all and reloads the API. */
export function ApiSettingsForm({ api }: { api: Api }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(api.name);
  const [keyAuth, setKeyAuth] = useState(api.keyAuth.enabled);
  const [encryption, setEncryption] = useState(api.encryption.enabled);
  const [defaultPrefix, setDefaultPrefix] = useState(api.defaultPrefix ?? '');
  const [defaultBytes, setDefaultBytes] = useState(api.defaultBytes === null ? '' : String(api.defaultBytes));
  const [deleteProtection, setDeleteProtection] = useState(api.deleteProtection);
  const update = useMutation(
    trpc.apis.updateApi.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() }),
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({
      apiId: api.id,
      name: name.trim(),
      keyAuth: { enabled: keyAuth },
      encryption: { enabled: encryption },
      defaultPrefix: defaultPrefix.trim() || null,
      defaultBytes: defaultBytes === '' ? null : Number(defaultBytes),
      deleteProtection,
    });
  };

  return (
    <form onSubmit={submit} className="stack">
      <div className="field">
        <label htmlFor="api-settings-name">Name</label>
        <input
          id="api-settings-name"
          required
          minLength={3}
          maxLength={255}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={keyAuth} onChange={(event) => setKeyAuth(event.target.checked)} />
        Key authentication enabled
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={encryption} onChange={(event) => setEncryption(event.target.checked)} />
        Encryption enabled (allows recoverable keys)
      </label>
      <div className="field">
        <label htmlFor="api-settings-prefix">Default key prefix</label>
        <input
          id="api-settings-prefix"
          pattern="[a-zA-Z0-9_]{1,16}"
          maxLength={16}
          value={defaultPrefix}
          onChange={(event) => setDefaultPrefix(event.target.value)}
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
          value={defaultBytes}
          onChange={(event) => setDefaultBytes(event.target.value)}
        />
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={deleteProtection}
          onChange={(event) => setDeleteProtection(event.target.checked)}
        />
        Delete protection
      </label>
      {update.error ? <ErrorMessage error={update.error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>
          Save settings
        </button>
        <span role="status">{update.isSuccess ? 'Saved.' : null}</span>
      </div>
    </form>
  );
}
