import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormDialog } from '../components/FormDialog.tsx';
import { PermissionPicker } from '../components/PermissionPicker.tsx';
import { parseLocalDateTime } from '../format.ts';
import { trpc } from '../trpc.ts';

interface CreateRootKeyDialogProps {
  open: boolean;
  onClose: () => void;
  /** Receives the new key's secret, to show once. */
  onCreated: (key: string) => void;
}

export function CreateRootKeyDialog({ open, onClose, onCreated }: CreateRootKeyDialogProps) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const create = useMutation(trpc.rootKeys.createRootKey.mutationOptions());

  const close = () => {
    setName('');
    setExpires('');
    setPermissions([]);
    create.reset();
    onClose();
  };

  const submit = () => {
    create.mutate(
      { name: name.trim() || undefined, permissions, expires: parseLocalDateTime(expires) },
      {
        onSuccess: ({ key }) => {
          onCreated(key);
          close();
        },
      },
    );
  };

  return (
    <FormDialog
      title="Create root key"
      open={open}
      onClose={close}
      onSubmit={submit}
      submitLabel={create.isPending ? 'Creating…' : 'Create'}
      mutation={create}
      wide
      incomplete={permissions.length === 0}
    >
      <div className="field">
        <label htmlFor="root-key-name">Name</label>
        <input id="root-key-name" value={name} onChange={(event) => setName(event.target.value)} maxLength={255} />
      </div>
      <div className="field">
        <label htmlFor="root-key-expires">Expires (optional)</label>
        <input
          id="root-key-expires"
          type="datetime-local"
          value={expires}
          onChange={(event) => setExpires(event.target.value)}
        />
      </div>
      <PermissionPicker selected={permissions} onChange={setPermissions} />
    </FormDialog>
  );
}
