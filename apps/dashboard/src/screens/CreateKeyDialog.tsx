import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormDialog } from '../components/FormDialog.tsx';
import { parseLocalDateTime } from '../format.ts';
import { trpc } from '../trpc.ts';

interface CreateKeyDialogProps {
  apiId: string;
  open: boolean;
  onClose: () => void;
  /** Receives the new key's secret, to show once. */
  onCreated: (key: string) => void;
}

const EMPTY_FORM = { name: '', prefix: '', externalId: '', credits: '', expires: '', recoverable: false };

export function CreateKeyDialog({ apiId, open, onClose, onCreated }: CreateKeyDialogProps) {
  const [form, setForm] = useState(EMPTY_FORM);
  const create = useMutation(trpc.keys.createKey.mutationOptions());
  const set = <K extends keyof typeof EMPTY_FORM>(field: K, value: (typeof EMPTY_FORM)[K]) =>
    setForm((current) => ({ ...current, [field]: value }));

  const close = () => {
    setForm(EMPTY_FORM);
    create.reset();
    onClose();
  };

  const submit = () => {
    create.mutate(
      {
        apiId,
        // Empty fields are left out so the API's defaults apply.
        name: form.name.trim() || undefined,
        prefix: form.prefix.trim() || undefined,
        externalId: form.externalId.trim() || undefined,
        credits: form.credits === '' ? undefined : { remaining: Number(form.credits) },
        expires: parseLocalDateTime(form.expires),
        recoverable: form.recoverable,
      },
      {
        onSuccess: ({ key }) => {
          onCreated(key);
          close();
        },
      },
    );
  };

  return (
    <FormDialog title="Create key" open={open} onClose={close} onSubmit={submit} submitLabel="Create" mutation={create}>
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" maxLength={255} value={form.name} onChange={(event) => set('name', event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="key-prefix">Prefix</label>
        <input
          id="key-prefix"
          pattern="[a-zA-Z0-9_]{1,16}"
          maxLength={16}
          value={form.prefix}
          onChange={(event) => set('prefix', event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="key-external-id">External id</label>
        <input
          id="key-external-id"
          pattern="[a-zA-Z0-9_.\-]+"
          maxLength={255}
          value={form.externalId}
          onChange={(event) => set('externalId', event.target.value)}
          aria-describedby="key-external-id-hint"
        />
        <p id="key-external-id-hint" className="hint">
          Your id for the customer; keys with the same external id share an identity.
        </p>
      </div>
      <div className="field">
        <label htmlFor="key-credits">Credits</label>
        <input
          id="key-credits"
          type="number"
          min={0}
          value={form.credits}
          onChange={(event) => set('credits', event.target.value)}
          aria-describedby="key-credits-hint"
        />
        <p id="key-credits-hint" className="hint">
          Empty for unlimited.
        </p>
      </div>
      <div className="field">
        <label htmlFor="key-expires">Expires</label>
        <input
          id="key-expires"
          type="datetime-local"
          value={form.expires}
          onChange={(event) => set('expires', event.target.value)}
        />
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.recoverable}
          onChange={(event) => set('recoverable', event.target.checked)}
        />
        Recoverable (stored encrypted, can be revealed later)
      </label>
    </FormDialog>
  );
}
