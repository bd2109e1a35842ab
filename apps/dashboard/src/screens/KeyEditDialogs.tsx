import type { PermissionTuple } from '@keyplane/core/rules';
import type { AppRouter } from '@keyplane/procedures';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferRouterInputs } from '@trpc/server';
import { type ReactNode, useId, useState } from 'react';
import { CreditsFields, toCreditsInput, toCreditsValues } from '../components/CreditsFields.tsx';
import { ExternalIdField } from '../components/ExternalIdField.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { PermissionChecklist, RoleChecklist } from '../components/RbacChecklists.tsx';
import { formatMeta, formatTime, parseLocalDateTime, toLocalDateTime } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';

type KeyData = RouterOutputs['keys']['getKey'];
type KeyAccess = RouterOutputs['keys']['getKeyAccess'];
type KeyChange = Omit<inferRouterInputs<AppRouter>['keys']['updateKey'], 'keyId'>;

/** The part of a key a dialog edits. */
export type KeyPart = 'name' | 'expiry' | 'credits' | 'ratelimits' | 'identity' | 'roles' | 'permissions' | 'meta';

const rbac = (action: string): PermissionTuple => ({ resourceType: 'rbac', resourceId: '*', action });
/** keys.updateKey replaces roles and permissions as a whole, which may add and remove. */
export const SET_ROLES = [rbac('add_role_to_key'), rbac('remove_role_from_key')];
export const SET_PERMISSIONS = [rbac('add_permission_to_key'), rbac('remove_permission_from_key')];

/** What saving a part needs besides `update_key` on the key's API. */
export function partPermissions(apiId: string, part: KeyPart): PermissionTuple[] {
  const update: PermissionTuple = { resourceType: 'api', resourceId: apiId, action: 'update_key' };
  if (part === 'roles') return [update, ...SET_ROLES];
  if (part === 'permissions') return [update, ...SET_PERMISSIONS];
  return [update];
}

interface KeyEditDialogProps {
  part: KeyPart;
  apiId: string;
  keyData: KeyData;
  access: KeyAccess;
  onClose: () => void;
}

/**
 * One part of a key in a dialog of its own, saved with one keys.updateKey carrying that part only:
 * the dialog closes once the key is read again with the change.
 */
export function KeyEditDialog({ part, apiId, keyData, access, onClose }: KeyEditDialogProps) {
  const queryClient = useQueryClient();
  const update = useMutation(
    trpc.keys.updateKey.mutationOptions({
      onSuccess: async () => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.keys.getKey.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.keys.getKeyAccess.pathKey() }),
          // The API's key lists and counts.
          queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() }),
          // Linking a key by external id may create an identity.
          queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() }),
        ]);
        onClose();
      },
    }),
  );
  const save = (change: KeyChange) => update.mutate({ keyId: keyData.keyId, ...change });
  const common = { apiId, part, update, onClose };
  switch (part) {
    case 'name':
      return <NameDialog {...common} keyData={keyData} save={save} />;
    case 'expiry':
      return <ExpiryDialog {...common} keyData={keyData} save={save} />;
    case 'credits':
      return <CreditsDialog {...common} keyData={keyData} save={save} />;
    case 'ratelimits':
      return <RatelimitsDialog {...common} keyData={keyData} save={save} />;
    case 'identity':
      return <IdentityDialog {...common} keyData={keyData} save={save} />;
    case 'roles':
      return <RolesDialog {...common} access={access} save={save} />;
    case 'permissions':
      return <PermissionsDialog {...common} access={access} save={save} />;
    case 'meta':
      return <MetaDialog {...common} keyData={keyData} save={save} />;
  }
}

interface PartDialogProps {
  apiId: string;
  part: KeyPart;
  update: { isPending: boolean; error: Error | null };
  onClose: () => void;
  save: (change: KeyChange) => void;
}

function PartDialog({
  title,
  apiId,
  part,
  update,
  onClose,
  onSubmit,
  wide,
  children,
}: Omit<PartDialogProps, 'save'> & { title: string; onSubmit: () => void; wide?: boolean; children: ReactNode }) {
  return (
    <FormDialog
      title={title}
      open
      onClose={onClose}
      onSubmit={onSubmit}
      submitLabel={update.isPending ? 'Saving…' : 'Save'}
      mutation={update}
      permission={partPermissions(apiId, part)}
      wide={wide}
    >
      {children}
    </FormDialog>
  );
}

function NameDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const [name, setName] = useState(keyData.name ?? '');
  const id = useId();
  return (
    <PartDialog {...props} title="Rename key" onSubmit={() => save({ name: name.trim() || null })}>
      <div className="field">
        <label htmlFor={id}>Key name</label>
        <input
          id={id}
          maxLength={255}
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} className="hint">
          For you and your team; your customer never sees it. Empty for none.
        </p>
      </div>
    </PartDialog>
  );
}

const DAY_MS = 86_400_000;
const EXPIRY_CHOICES = [
  { label: 'Never', days: null },
  { label: 'In 7 days', days: 7 },
  { label: 'In 30 days', days: 30 },
  { label: 'In 90 days', days: 90 },
] as const;

function ExpiryDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const [expires, setExpires] = useState(keyData.expires === undefined ? '' : toLocalDateTime(keyData.expires));
  const id = useId();
  const chosen = parseLocalDateTime(expires);
  return (
    <PartDialog {...props} title="Expiry" onSubmit={() => save({ expires: chosen ?? null })}>
      <div className="field">
        <span className="field-label">Quick choices</span>
        <div className="actions">
          {EXPIRY_CHOICES.map((choice) => (
            <button
              key={choice.label}
              type="button"
              className="sm"
              onClick={() => setExpires(choice.days === null ? '' : toLocalDateTime(Date.now() + choice.days * DAY_MS))}
            >
              {choice.label}
            </button>
          ))}
        </div>
      </div>
      <div className="field">
        <label htmlFor={id}>Expires at (your local time)</label>
        <input
          id={id}
          type="datetime-local"
          value={expires}
          onChange={(event) => setExpires(event.target.value)}
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} className="hint">
          {chosen === undefined
            ? 'Empty: the key never expires.'
            : `${formatTime(chosen)}. ${chosen <= Date.now() ? 'That is past: the key stops working as soon as you save.' : ''}`}
        </p>
      </div>
    </PartDialog>
  );
}

function CreditsDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const [credits, setCredits] = useState(toCreditsValues(keyData.credits));
  return (
    <PartDialog {...props} title="Credits" onSubmit={() => save({ credits: toCreditsInput(credits) })}>
      <CreditsFields values={credits} onChange={(change) => setCredits((current) => ({ ...current, ...change }))} />
    </PartDialog>
  );
}

function RatelimitsDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const [rows, setRows] = useState(toRatelimitRows(keyData.ratelimits));
  return (
    <PartDialog {...props} title="Rate limits" wide onSubmit={() => save({ ratelimits: rows })}>
      <p className="hint">
        A verification that names a limit, or any verification for a limit that auto-applies, counts against it; past
        it, the verification answers RATE_LIMITED until the window moves on.
      </p>
      <RatelimitsEditor rows={rows} onChange={setRows} />
    </PartDialog>
  );
}

function IdentityDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const saved = keyData.identity?.externalId ?? '';
  const [externalId, setExternalId] = useState(saved);
  const unlinking = saved !== '' && externalId.trim() === '';
  return (
    <PartDialog {...props} title="Identity" onSubmit={() => save({ externalId: externalId.trim() || null })}>
      <ExternalIdField
        value={externalId}
        onChange={setExternalId}
        hint="An existing identity’s external id (suggested as you type), a new one to create that identity, or empty for none."
      />
      {unlinking ? (
        <p className="warning" role="note">
          Saving unlinks <strong>{saved}</strong>: the key stops sharing its meta and rate limits at once. The identity
          itself stays.
        </p>
      ) : null}
    </PartDialog>
  );
}

function RolesDialog({ access, save, ...props }: PartDialogProps & { access: KeyAccess }) {
  const [roles, setRoles] = useState(access.roles);
  return (
    <PartDialog {...props} title="Roles" wide onSubmit={() => save({ roles })}>
      <RoleChecklist legend="Roles" selected={roles} onChange={setRoles} />
    </PartDialog>
  );
}

function PermissionsDialog({ access, save, ...props }: PartDialogProps & { access: KeyAccess }) {
  const [permissions, setPermissions] = useState(access.directPermissions);
  return (
    <PartDialog {...props} title="Direct permissions" wide onSubmit={() => save({ permissions })}>
      <p className="hint">Permissions the key holds itself; its roles grant the others.</p>
      <PermissionChecklist legend="Direct permissions" selected={permissions} onChange={setPermissions} />
    </PartDialog>
  );
}

function MetaDialog({ keyData, save, ...props }: PartDialogProps & { keyData: KeyData }) {
  const [meta, setMeta] = useState(formatMeta(keyData.meta));
  const metaCheck = useMetaCheck();
  const id = useId();
  return (
    <PartDialog
      {...props}
      title="Meta"
      wide
      onSubmit={() => {
        const checked = metaCheck.check(meta);
        if (checked !== undefined) save({ meta: checked });
      }}
    >
      <MetaField id={id} value={meta} onChange={setMeta} problem={metaCheck.problem} />
    </PartDialog>
  );
}
