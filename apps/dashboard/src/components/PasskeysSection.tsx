import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  startRegistration,
} from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fingerprint, Pencil, Plus, Trash2 } from 'lucide-react';
import { useId, useState } from 'react';
import { formatTime } from '../format.ts';
import { type RouterOutputs, trpc, trpcClient } from '../trpc.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';
import { FormDialog } from './FormDialog.tsx';
import { RelativeTime } from './RelativeTime.tsx';
import { BlockSkeleton } from './Skeleton.tsx';

type Passkey = RouterOutputs['account']['listPasskeys']['passkeys'][number];

/** What the browser says when a WebAuthn prompt is dismissed or fails, in words a person can act on. */
export function passkeyPromptError(error: unknown): Error {
  if (error instanceof Error && error.name === 'NotAllowedError') {
    return new Error('The passkey prompt was closed or timed out. Try again when you are ready.');
  }
  if (error instanceof Error && error.name === 'InvalidStateError') {
    return new Error('This device has a passkey for your account already.');
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The signed-in person's passkeys (account settings): each with its name, when it was added and
 * last used; add one (the browser asks the device to create it), rename one, or remove one after
 * asking. Passkeys sign in without a password (the sign-in page's "Sign in with a passkey").
 */
export function PasskeysSection() {
  const queryClient = useQueryClient();
  const passkeys = useQuery(trpc.account.listPasskeys.queryOptions());
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<Passkey | undefined>();
  const [removing, setRemoving] = useState<Passkey | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.account.listPasskeys.pathKey() });
  const remove = useMutation(
    trpc.account.removePasskey.mutationOptions({
      onSuccess: async () => {
        setRemoving(undefined);
        await refresh();
      },
    }),
  );
  const supported = browserSupportsWebAuthn();
  const list = passkeys.data?.passkeys;

  return (
    <section className="panel" aria-labelledby="passkeys-title">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="passkeys-title">Passkeys</h2>
        <button type="button" onClick={() => setAdding(true)} disabled={!supported}>
          <Plus size={16} aria-hidden="true" /> Add a passkey
        </button>
      </div>
      <p className="text-sm text-muted">
        Sign in with your fingerprint, face or device PIN instead of a password. Each passkey stays on the device or
        password manager that made it.
      </p>
      {supported ? null : <p className="hint">This browser cannot use passkeys.</p>}
      {passkeys.error ? <ErrorMessage error={passkeys.error} onRetry={() => void passkeys.refetch()} /> : null}
      {passkeys.isPending ? <BlockSkeleton height="3rem" /> : null}
      {list && list.length === 0 ? <p className="text-sm">You have no passkeys yet.</p> : null}
      {list && list.length > 0 ? (
        <ul className="mt-2 divide-y divide-line" aria-label="Your passkeys">
          {list.map((passkey) => (
            <li key={passkey.passkeyId} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <div className="min-w-0">
                <p className="flex items-center gap-1 font-medium break-words">
                  <Fingerprint size={16} aria-hidden="true" /> {passkey.name}
                </p>
                <p className="text-sm text-muted">
                  Added <span title={formatTime(passkey.createdAt)}>{formatTime(passkey.createdAt)}</span> · last used{' '}
                  <RelativeTime epochMs={passkey.lastUsedAt} none="never" />
                </p>
              </div>
              <div className="row-actions">
                <button type="button" className="ghost" onClick={() => setRenaming(passkey)}>
                  <Pencil size={16} aria-hidden="true" /> Rename<span className="sr-only"> {passkey.name}</span>
                </button>
                <button type="button" className="ghost danger" onClick={() => setRemoving(passkey)}>
                  <Trash2 size={16} aria-hidden="true" /> Remove<span className="sr-only"> {passkey.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <AddPasskeyDialog open={adding} onClose={() => setAdding(false)} onAdded={refresh} />
      <RenamePasskeyDialog passkey={renaming} onClose={() => setRenaming(undefined)} onRenamed={refresh} />
      <ConfirmDialog
        title="Remove this passkey?"
        open={removing !== undefined}
        onClose={() => {
          setRemoving(undefined);
          remove.reset();
        }}
        confirmLabel="Remove passkey"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => removing && remove.mutate({ passkeyId: removing.passkeyId })}
      >
        <p>
          <strong>{removing?.name}</strong> will no longer sign you in. Sessions already started with it go on until
          they end. The device may keep it until you delete it there too.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function AddPasskeyDialog({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: () => unknown }) {
  const [name, setName] = useState('');
  const nameId = useId();
  const add = useMutation({
    mutationFn: async (passkeyName: string) => {
      const optionsJSON = await trpcClient.account.passkeyRegistrationOptions.mutate();
      let response: Awaited<ReturnType<typeof startRegistration>>;
      try {
        // Made by the server's SimpleWebAuthn for this browser's: the API types them by shape only.
        response = await startRegistration({
          optionsJSON: optionsJSON as unknown as PublicKeyCredentialCreationOptionsJSON,
        });
      } catch (error) {
        throw passkeyPromptError(error);
      }
      return trpcClient.account.addPasskey.mutate({ name: passkeyName, response });
    },
    onSuccess: async () => {
      setName('');
      onClose();
      await onAdded();
    },
  });
  const close = () => {
    add.reset();
    onClose();
  };
  return (
    <FormDialog
      title="Add a passkey"
      open={open}
      onClose={close}
      onSubmit={() => add.mutate(name.trim())}
      submitLabel={add.isPending ? 'Waiting for your device…' : 'Add passkey'}
      mutation={add}
    >
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          required
          maxLength={100}
          autoComplete="off"
          placeholder="Work laptop"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-describedby={`${nameId}-hint`}
        />
        <p id={`${nameId}-hint`} className="hint">
          To tell your passkeys apart. Your browser then asks your device to create the passkey.
        </p>
      </div>
    </FormDialog>
  );
}

function RenamePasskeyDialog({
  passkey,
  onClose,
  onRenamed,
}: {
  passkey: Passkey | undefined;
  onClose: () => void;
  onRenamed: () => unknown;
}) {
  const [name, setName] = useState('');
  const [shownFor, setShownFor] = useState<string | undefined>();
  const nameId = useId();
  // The field starts from the passkey's name each time the dialog opens for one.
  if (passkey && shownFor !== passkey.passkeyId) {
    setShownFor(passkey.passkeyId);
    setName(passkey.name);
  }
  const rename = useMutation(
    trpc.account.renamePasskey.mutationOptions({
      onSuccess: async () => {
        onClose();
        setShownFor(undefined);
        await onRenamed();
      },
    }),
  );
  const close = () => {
    rename.reset();
    setShownFor(undefined);
    onClose();
  };
  return (
    <FormDialog
      title="Rename passkey"
      open={passkey !== undefined}
      onClose={close}
      onSubmit={() => passkey && rename.mutate({ passkeyId: passkey.passkeyId, name: name.trim() })}
      submitLabel="Rename"
      mutation={rename}
    >
      <div className="field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          required
          maxLength={100}
          autoComplete="off"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
    </FormDialog>
  );
}
