import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useDraft } from '../useDraft.ts';
import { useKeyUpdate } from './useKeyUpdate.ts';

interface KeyIdentityFormProps {
  keyData: RouterOutputs['keys']['getKey'];
  onSaved: () => Promise<unknown>;
}

/**
 * Links the key to an identity by external id (updateKey creates the identity when none has it
 * yet), or unlinks it. Existing identities are suggested as the user types.
 */
export function KeyIdentityForm({ keyData, onSaved }: KeyIdentityFormProps) {
  const { identity } = keyData;
  const draft = useDraft({ externalId: identity?.externalId ?? '' });
  const [confirmingUnlink, setConfirmingUnlink] = useState(false);
  const search = useDebouncedValue(draft.values.externalId.trim());
  const suggestions = useQuery(
    trpc.identities.listIdentities.queryOptions({ limit: 20, search: search || undefined }, { enabled: draft.edited }),
  );
  const update = useKeyUpdate(onSaved, () => {
    draft.discard();
    setConfirmingUnlink(false);
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ keyId: keyData.keyId, externalId: draft.values.externalId.trim() });
  };

  return (
    <>
      <p>
        {identity ? (
          <>
            Linked to <Link to={`/identities/${identity.id}`}>{identity.externalId}</Link> (<code>{identity.id}</code>
            ).
          </>
        ) : (
          'No identity. Link one to share its meta and rate limits with this key.'
        )}
      </p>
      <form onSubmit={submit} className="stack">
        <div className="field">
          <label htmlFor="key-identity-external-id">External id</label>
          <input
            id="key-identity-external-id"
            required
            pattern="[a-zA-Z0-9_.\-]+"
            maxLength={255}
            list="key-identity-suggestions"
            autoComplete="off"
            value={draft.values.externalId}
            onChange={(event) => draft.edit({ externalId: event.target.value })}
            aria-describedby="key-identity-external-id-hint"
          />
          <datalist id="key-identity-suggestions">
            {suggestions.data?.data.map((option) => (
              <option key={option.id} value={option.externalId} />
            ))}
          </datalist>
          <p id="key-identity-external-id-hint" className="hint">
            An existing identity’s external id (suggested as you type), or a new one to create that identity.
          </p>
          {suggestions.error ? (
            <ErrorMessage error={suggestions.error} onRetry={() => void suggestions.refetch()} />
          ) : null}
        </div>
        <SaveActions
          label={identity ? 'Change identity' : 'Link identity'}
          mutation={update}
          draft={draft}
          // While the unlink dialog is open, it shows the error itself.
          hideError={confirmingUnlink}
        >
          {identity ? (
            <button
              type="button"
              className="danger"
              disabled={update.isPending}
              onClick={() => {
                update.reset();
                setConfirmingUnlink(true);
              }}
            >
              Unlink identity
            </button>
          ) : null}
        </SaveActions>
      </form>
      <ConfirmDialog
        title="Unlink identity"
        open={confirmingUnlink}
        confirmLabel="Unlink identity"
        pending={update.isPending}
        error={update.error}
        onConfirm={() => update.mutate({ keyId: keyData.keyId, externalId: null })}
        onClose={() => {
          setConfirmingUnlink(false);
          update.reset();
        }}
      >
        <p>
          Unlink <strong>{identity?.externalId}</strong> from this key? The key stops sharing the identity’s meta and
          rate limits at once; the identity itself stays.
        </p>
      </ConfirmDialog>
    </>
  );
}
