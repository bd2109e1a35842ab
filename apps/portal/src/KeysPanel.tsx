import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { isUnauthorized, type Key, portalApi, problemText } from './api.ts';
import { Dialog, SecretField } from './Dialog.tsx';
import { creditsText, formatDate, formatDateTime, formatRelative, keyLabel, limitsText, statusOf } from './format.ts';
import { useAction } from './useCall.ts';

interface KeysPanelProps {
  /** Whether the session's scopes allow this (`keys:create`, …): what they do not is not offered. */
  may: (scope: string) => boolean;
  onSessionEnd: () => void;
  /** A key was made, rolled, renamed or deleted: the usage chart's list of keys follows. */
  onChange: () => void;
}

type Open = { kind: 'create' } | { kind: 'roll' | 'rename' | 'delete'; key: Key } | undefined;

/** The customer's keys, every page of them, and what they may do to each. */
export function KeysPanel({ may, onSessionEnd, onChange }: KeysPanelProps) {
  const [keys, setKeys] = useState<Key[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [open, setOpen] = useState<Open>();
  const [now, setNow] = useState(() => Date.now());

  const load = useCallback(
    async (after?: string) => {
      setLoadError(undefined);
      try {
        const page = await portalApi.listKeys(after);
        setKeys((shown) => (after === undefined ? page.data : [...(shown ?? []), ...page.data]));
        setCursor(page.pagination?.cursor);
        setNow(Date.now());
      } catch (error) {
        if (isUnauthorized(error)) onSessionEnd();
        else setLoadError(problemText(error));
      }
    },
    [onSessionEnd],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const changed = () => {
    onChange();
    void load();
  };
  // A deleted key leaves the list at once, so it cannot be picked again before the reload answers.
  const deleted = (keyId: string) => {
    setKeys((shown) => shown?.filter((key) => key.keyId !== keyId));
    changed();
  };
  const close = () => setOpen(undefined);

  return (
    <section className="panel" aria-labelledby="keys-title">
      <div className="panel-header">
        <h2 id="keys-title">Your keys</h2>
        {may('keys:create') ? (
          <button type="button" className="primary" onClick={() => setOpen({ kind: 'create' })}>
            Create key
          </button>
        ) : null}
      </div>
      {loadError ? (
        <div role="alert" className="problem">
          <p>{loadError}</p>
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </div>
      ) : null}
      {keys === undefined && !loadError ? <p role="status">Loading your keys…</p> : null}
      {keys?.length === 0 ? (
        <p className="empty">
          You have no keys yet.{may('keys:create') ? ' Create one to start calling the API.' : ''}
        </p>
      ) : null}
      {keys && keys.length > 0 ? (
        <ul className="keys" aria-label="Your keys">
          {keys.map((key) => (
            <KeyItem key={key.keyId} item={key} now={now} may={may} onOpen={(kind) => setOpen({ kind, key })} />
          ))}
        </ul>
      ) : null}
      {cursor ? (
        <button type="button" onClick={() => void load(cursor)}>
          Show more keys
        </button>
      ) : null}
      <CreateKeyDialog open={open?.kind === 'create'} onClose={close} onCreated={changed} onSessionEnd={onSessionEnd} />
      <RollKeyDialog
        item={open?.kind === 'roll' ? open.key : undefined}
        onClose={close}
        onRolled={changed}
        onSessionEnd={onSessionEnd}
      />
      <RenameKeyDialog
        item={open?.kind === 'rename' ? open.key : undefined}
        onClose={close}
        onRenamed={changed}
        onSessionEnd={onSessionEnd}
      />
      <DeleteKeyDialog
        item={open?.kind === 'delete' ? open.key : undefined}
        onClose={close}
        onDeleted={deleted}
        onSessionEnd={onSessionEnd}
      />
    </section>
  );
}

function KeyItem({
  item,
  now,
  may,
  onOpen,
}: {
  item: Key;
  now: number;
  may: (scope: string) => boolean;
  onOpen: (kind: 'roll' | 'rename' | 'delete') => void;
}) {
  const titleId = useId();
  const label = keyLabel(item);
  const { status, label: statusLabel } = statusOf(item, now);
  const actions = [
    may('keys:reroll') ? (['roll', 'Roll'] as const) : undefined,
    may('keys:update') ? (['rename', 'Rename'] as const) : undefined,
    may('keys:delete') ? (['delete', 'Delete'] as const) : undefined,
  ].filter((action) => action !== undefined);
  return (
    <li className="key" aria-labelledby={titleId}>
      <div className="key-head">
        <h3 id={titleId}>{label}</h3>
        <span className={`status status-${status}`}>{statusLabel}</span>
      </div>
      <p className="key-start">
        <span className="visually-hidden">Starts with </span>
        <code>{item.start}…</code>
      </p>
      <dl className="facts">
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={new Date(item.createdAt).toISOString()} title={formatDateTime(item.createdAt)}>
              {formatDate(item.createdAt)}
            </time>
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>
            {item.lastUsedAt === undefined ? (
              'Never'
            ) : (
              <time dateTime={new Date(item.lastUsedAt).toISOString()} title={formatDateTime(item.lastUsedAt)}>
                {formatRelative(item.lastUsedAt, now)}
              </time>
            )}
          </dd>
        </div>
        <div>
          <dt>Credits</dt>
          <dd>{creditsText(item)}</dd>
        </div>
        <div>
          <dt>Limits</dt>
          <dd>{limitsText(item)}</dd>
        </div>
        {item.expires === undefined ? null : (
          <div>
            <dt>{item.expires > now ? 'Expires' : 'Expired'}</dt>
            <dd>
              <time dateTime={new Date(item.expires).toISOString()} title={formatDateTime(item.expires)}>
                {formatRelative(item.expires, now)}
              </time>
            </dd>
          </div>
        )}
      </dl>
      {actions.length > 0 ? (
        <div className="key-actions">
          {actions.map(([kind, text]) => (
            <button
              key={kind}
              type="button"
              className={kind === 'delete' ? 'danger' : undefined}
              onClick={() => onOpen(kind)}
            >
              {text}
              <span className="visually-hidden"> {label}</span>
            </button>
          ))}
        </div>
      ) : null}
    </li>
  );
}

/**
 * A dialog's last lines: what went wrong, in the server's words, then Cancel and the action, which
 * says it is under way while `pending`. A submit button unless `onAct` is given.
 */
function DialogFooter({
  error,
  pending,
  label,
  pendingLabel,
  onCancel,
  onAct,
  disabled = false,
  danger = false,
}: {
  error: string | undefined;
  pending: boolean;
  label: string;
  pendingLabel: string;
  onCancel: () => void;
  onAct?: () => void;
  disabled?: boolean;
  danger?: boolean;
}) {
  return (
    <>
      {error ? (
        <p role="alert" className="problem">
          {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type={onAct ? 'button' : 'submit'}
          className={danger ? 'danger solid' : 'primary'}
          onClick={onAct}
          disabled={pending || disabled}
        >
          {pending ? pendingLabel : label}
        </button>
      </div>
    </>
  );
}

function CreateKeyDialog({
  open,
  onClose,
  onCreated,
  onSessionEnd,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: () => void;
  onSessionEnd: () => void;
}) {
  const create = useAction((name: string | undefined) => portalApi.createKey(name), onSessionEnd);
  const [name, setName] = useState('');
  const nameId = useId();
  const close = () => {
    create.reset();
    setName('');
    onClose();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await create.run(name.trim() || undefined)) onCreated();
  };
  return (
    <Dialog title={create.result ? 'Your new key' : 'Create a key'} open={open} onClose={close}>
      {create.result ? (
        <>
          <p>Copy your key now and keep it somewhere safe: this page never shows it again.</p>
          <SecretField label="New key" value={create.result.key} />
          <div className="dialog-actions">
            <button type="button" className="primary" onClick={close}>
              Done
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          <div className="field">
            <label htmlFor={nameId}>Name (optional)</label>
            <input
              id={nameId}
              value={name}
              maxLength={255}
              autoComplete="off"
              onChange={(event) => setName(event.target.value)}
              aria-describedby={`${nameId}-hint`}
            />
            <p id={`${nameId}-hint`} className="hint">
              What the key is for, such as &ldquo;Production server&rdquo;.
            </p>
          </div>
          <DialogFooter
            error={create.error}
            pending={create.pending}
            label="Create key"
            pendingLabel="Creating…"
            onCancel={close}
          />
        </form>
      )}
    </Dialog>
  );
}

/** How long the rolled key keeps working, so the customer can deploy the new one first. */
const GRACE_PERIODS = [
  { ms: 0, label: 'Stop it now' },
  { ms: 3_600_000, label: 'In 1 hour' },
  { ms: 86_400_000, label: 'In 24 hours' },
  { ms: 7 * 86_400_000, label: 'In 7 days' },
] as const;

function RollKeyDialog({
  item,
  onClose,
  onRolled,
  onSessionEnd,
}: {
  item: Key | undefined;
  onClose: () => void;
  onRolled: () => void;
  onSessionEnd: () => void;
}) {
  const roll = useAction(
    ({ keyId, expiration }: { keyId: string; expiration: number }) => portalApi.rerollKey(keyId, expiration),
    onSessionEnd,
  );
  const [grace, setGrace] = useState<number>(86_400_000);
  const groupId = useId();
  const close = () => {
    roll.reset();
    setGrace(86_400_000);
    onClose();
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (item && (await roll.run({ keyId: item.keyId, expiration: grace }))) onRolled();
  };
  const label = item ? keyLabel(item) : '';
  return (
    <Dialog title={roll.result ? 'Your new key' : `Roll ${label}`} open={item !== undefined} onClose={close}>
      {roll.result ? (
        <>
          <p>
            The new key replaces <strong>{label}</strong>. Copy it now and keep it somewhere safe: this page never shows
            it again.
          </p>
          <SecretField label="New key" value={roll.result.key} />
          <div className="dialog-actions">
            <button type="button" className="primary" onClick={close}>
              Done
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          <p>A new key with the same settings replaces this one. Use it where the old one is used.</p>
          <fieldset className="choices" aria-describedby={`${groupId}-hint`}>
            <legend>When should the old key stop working?</legend>
            {GRACE_PERIODS.map((period) => (
              <label key={period.ms} className="choice">
                <input
                  type="radio"
                  name={groupId}
                  value={period.ms}
                  checked={grace === period.ms}
                  onChange={() => setGrace(period.ms)}
                />
                {period.label}
              </label>
            ))}
            <p id={`${groupId}-hint`} className="hint">
              Keep it a while if you need time to put the new key in place; stop it now if it leaked.
            </p>
          </fieldset>
          <DialogFooter
            error={roll.error}
            pending={roll.pending}
            label="Roll key"
            pendingLabel="Rolling…"
            onCancel={close}
          />
        </form>
      )}
    </Dialog>
  );
}

function RenameKeyDialog({
  item,
  onClose,
  onRenamed,
  onSessionEnd,
}: {
  item: Key | undefined;
  onClose: () => void;
  onRenamed: () => void;
  onSessionEnd: () => void;
}) {
  const rename = useAction(
    ({ keyId, name }: { keyId: string; name: string }) => portalApi.updateKey(keyId, name),
    onSessionEnd,
  );
  const [name, setName] = useState<string | undefined>();
  const nameId = useId();
  const close = () => {
    rename.reset();
    setName(undefined);
    onClose();
  };
  const value = name ?? item?.name ?? '';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!item) return;
    if (await rename.run({ keyId: item.keyId, name: value.trim() })) {
      onRenamed();
      close();
    }
  };
  return (
    <Dialog title="Rename key" open={item !== undefined} onClose={close}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            required
            maxLength={255}
            autoComplete="off"
            value={value}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <DialogFooter
          error={rename.error}
          pending={rename.pending}
          disabled={value.trim() === ''}
          label="Rename"
          pendingLabel="Saving…"
          onCancel={close}
        />
      </form>
    </Dialog>
  );
}

function DeleteKeyDialog({
  item,
  onClose,
  onDeleted,
  onSessionEnd,
}: {
  item: Key | undefined;
  onClose: () => void;
  onDeleted: (keyId: string) => void;
  onSessionEnd: () => void;
}) {
  const remove = useAction((keyId: string) => portalApi.deleteKey(keyId), onSessionEnd);
  const close = () => {
    remove.reset();
    onClose();
  };
  const confirm = async () => {
    if (!item) return;
    if (await remove.run(item.keyId)) {
      onDeleted(item.keyId);
      close();
    }
  };
  return (
    <Dialog title="Delete this key?" open={item !== undefined} onClose={close}>
      <p>
        <strong>{item ? keyLabel(item) : ''}</strong> stops working at once, everywhere it is used. This cannot be
        undone.
      </p>
      <DialogFooter
        error={remove.error}
        pending={remove.pending}
        label="Delete key"
        pendingLabel="Deleting…"
        onCancel={close}
        onAct={() => void confirm()}
        danger
      />
    </Dialog>
  );
}
