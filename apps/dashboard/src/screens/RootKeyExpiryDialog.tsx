import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormDialog } from '../components/FormDialog.tsx';
import { parseLocalDateTime, toLocalDateTime } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';

interface RootKeyExpiryDialogProps {
  rootKey: RouterOutputs['rootKeys']['listRootKeys']['data'][number];
  onClose: () => void;
  onSaved: () => void;
}

/** Sets or clears a root key's expiry; a past time makes it stop working at once. */
export function RootKeyExpiryDialog({ rootKey, onClose, onSaved }: RootKeyExpiryDialogProps) {
  const [expires, setExpires] = useState(rootKey.expiresAt === null ? '' : toLocalDateTime(rootKey.expiresAt));
  const update = useMutation(trpc.rootKeys.updateRootKey.mutationOptions({ onSuccess: onSaved }));

  const submit = () => {
    update.mutate({ rootKeyId: rootKey.rootKeyId, expires: parseLocalDateTime(expires) ?? null });
  };

  return (
    <FormDialog
      title={`Expiry of ${rootKey.name ?? rootKey.rootKeyId}`}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel="Save expiry"
      mutation={update}
      actions={
        <button type="button" onClick={() => setExpires('')}>
          Clear expiry
        </button>
      }
    >
      <div className="field">
        <label htmlFor="root-key-expiry">Expires at</label>
        <input
          id="root-key-expiry"
          type="datetime-local"
          value={expires}
          onChange={(event) => setExpires(event.target.value)}
          aria-describedby="root-key-expiry-hint"
        />
        <p id="root-key-expiry-hint" className="hint">
          Leave empty (or use “Clear expiry”) for a key that never expires.
        </p>
      </div>
    </FormDialog>
  );
}
