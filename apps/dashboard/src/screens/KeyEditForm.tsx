import type { PermissionTuple } from '@keyplane/core/rules';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { CreditsFields, toCreditsInput, toCreditsValues } from '../components/CreditsFields.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { ExternalIdField } from '../components/ExternalIdField.tsx';
import { MetaField, useMetaCheck } from '../components/MetaField.tsx';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { PermissionChecklist, RoleChecklist } from '../components/RbacChecklists.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { formatMeta, parseLocalDateTime, toLocalDateTime } from '../format.ts';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';

type KeyData = RouterOutputs['keys']['getKey'];
type KeyAccess = RouterOutputs['keys']['getKeyAccess'];

interface KeyEditFormProps {
  apiId: string;
  keyData: KeyData;
}

const rbac = (action: string): PermissionTuple => ({ resourceType: 'rbac', resourceId: '*', action });
/** keys.updateKey replaces roles and permissions as a whole, which may add and remove. */
const SET_ROLES = [rbac('add_role_to_key'), rbac('remove_role_from_key')];
const SET_PERMISSIONS = [rbac('add_permission_to_key'), rbac('remove_permission_from_key')];

/** Loads what the form edits beside the key itself: its roles and direct permissions. */
export function KeyEditForm({ apiId, keyData }: KeyEditFormProps) {
  const access = useQuery(trpc.keys.getKeyAccess.queryOptions({ keyId: keyData.keyId }));
  if (access.error) return <ErrorMessage error={access.error} onRetry={() => void access.refetch()} />;
  if (access.isPending) return <BlockSkeleton height="24rem" />;
  return <KeyForm apiId={apiId} keyData={keyData} access={access.data} />;
}

function savedValues(keyData: KeyData, access: KeyAccess) {
  return {
    name: keyData.name ?? '',
    expires: keyData.expires === undefined ? '' : toLocalDateTime(keyData.expires),
    meta: formatMeta(keyData.meta),
    credits: toCreditsValues(keyData.credits),
    ratelimits: toRatelimitRows(keyData.ratelimits),
    roles: access.roles,
    permissions: access.directPermissions,
    externalId: keyData.identity?.externalId ?? '',
  };
}

type Values = ReturnType<typeof savedValues>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sameSet = (a: readonly string[], b: readonly string[]) => same([...a].sort(), [...b].sort());

/**
 * Every setting of the key in one form with one save: a single keys.updateKey carrying only what
 * changed, so it is saved as a whole or not at all, and asks only for the permissions the change needs.
 */
function KeyForm({ apiId, keyData, access }: { apiId: string; keyData: KeyData; access: KeyAccess }) {
  const queryClient = useQueryClient();
  const saved = savedValues(keyData, access);
  const draft = useDraft(saved);
  const { values } = draft;
  const metaCheck = useMetaCheck();
  const id = useId();
  const rolesChanged = !sameSet(values.roles, saved.roles);
  const permissionsChanged = !sameSet(values.permissions, saved.permissions);
  const updateMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'update_key' });
  const rolesMissing = useMissingPermission(SET_ROLES);
  const permissionsMissing = useMissingPermission(SET_PERMISSIONS);
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
        draft.discard();
      },
    }),
  );
  const edit = (change: Partial<Values>) => {
    update.reset();
    draft.edit(change);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const meta = metaCheck.check(values.meta);
    if (meta === undefined) return;
    const externalId = values.externalId.trim();
    update.mutate({
      keyId: keyData.keyId,
      ...(values.name === saved.name ? {} : { name: values.name.trim() || null }),
      ...(values.expires === saved.expires ? {} : { expires: parseLocalDateTime(values.expires) ?? null }),
      ...(values.meta === saved.meta ? {} : { meta }),
      ...(same(values.credits, saved.credits) ? {} : { credits: toCreditsInput(values.credits) }),
      ...(same(values.ratelimits, saved.ratelimits) ? {} : { ratelimits: values.ratelimits }),
      ...(rolesChanged ? { roles: values.roles } : {}),
      ...(permissionsChanged ? { permissions: values.permissions } : {}),
      ...(externalId === saved.externalId ? {} : { externalId: externalId || null }),
    });
  };

  const unlinking = saved.externalId !== '' && values.externalId.trim() === '';
  return (
    <form onSubmit={submit} className="panel stack" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Edit key</h2>
      {updateMissing ? <p className="hint">Read only: {updateMissing}</p> : null}
      <fieldset className="plain" disabled={updateMissing !== undefined}>
        <div className="grid">
          <fieldset>
            <legend>Settings</legend>
            <div className="field">
              <label htmlFor={`${id}-name`}>Name</label>
              <input
                id={`${id}-name`}
                maxLength={255}
                value={values.name}
                onChange={(event) => edit({ name: event.target.value })}
                aria-describedby={`${id}-name-hint`}
              />
              <p id={`${id}-name-hint`} className="hint">
                Empty for none.
              </p>
            </div>
            <div className="field">
              <label htmlFor={`${id}-expires`}>Expires at</label>
              <div className="inline-form">
                <input
                  id={`${id}-expires`}
                  type="datetime-local"
                  value={values.expires}
                  onChange={(event) => edit({ expires: event.target.value })}
                  aria-describedby={`${id}-expires-hint`}
                />
                <button type="button" onClick={() => edit({ expires: '' })} disabled={values.expires === ''}>
                  Never expires
                </button>
              </div>
              <p id={`${id}-expires-hint`} className="hint">
                Empty: the key never expires. A past time makes it stop working at once.
              </p>
            </div>
            <MetaField
              id={`${id}-meta`}
              value={values.meta}
              onChange={(meta) => edit({ meta })}
              problem={metaCheck.problem}
            />
          </fieldset>
          <div>
            <CreditsFields
              values={values.credits}
              onChange={(change) => edit({ credits: { ...values.credits, ...change } })}
            />
            <fieldset>
              <legend>Identity</legend>
              <p>
                {keyData.identity ? (
                  <>
                    Linked to <Link to={`/identities/${keyData.identity.id}`}>{keyData.identity.externalId}</Link>.
                  </>
                ) : (
                  'No identity. Link one to share its meta and rate limits with this key.'
                )}
              </p>
              <ExternalIdField
                value={values.externalId}
                onChange={(externalId) => edit({ externalId })}
                hint="An existing identity’s external id (suggested as you type), a new one to create that identity, or empty for none."
              />
              {unlinking ? (
                <p className="warning" role="note">
                  Saving unlinks <strong>{saved.externalId}</strong>: the key stops sharing its meta and rate limits at
                  once. The identity itself stays.
                </p>
              ) : null}
            </fieldset>
          </div>
        </div>
        <RatelimitsEditor rows={values.ratelimits} onChange={(ratelimits) => edit({ ratelimits })} />
        <fieldset>
          <legend>Roles and permissions</legend>
          <div className="grid">
            <AccessPart missing={rolesMissing}>
              <RoleChecklist legend="Roles" selected={values.roles} onChange={(roles) => edit({ roles })} />
            </AccessPart>
            <AccessPart missing={permissionsMissing}>
              <PermissionChecklist
                legend="Direct permissions"
                selected={values.permissions}
                onChange={(permissions) => edit({ permissions })}
              />
            </AccessPart>
          </div>
          <PermissionsThroughRoles roles={saved.roles} />
        </fieldset>
        <SaveActions
          label="Save changes"
          mutation={update}
          draft={draft}
          permission={[
            { resourceType: 'api', resourceId: apiId, action: 'update_key' },
            ...(rolesChanged ? SET_ROLES : []),
            ...(permissionsChanged ? SET_PERMISSIONS : []),
          ]}
        />
      </fieldset>
    </form>
  );
}

/** A part of the access a root key may not change: shown, disabled, with the reason. */
function AccessPart({ missing, children }: { missing: string | undefined; children: ReactNode }) {
  return (
    <fieldset className="plain" disabled={missing !== undefined}>
      {missing ? <p className="hint">Cannot be changed: {missing}</p> : null}
      {children}
    </fieldset>
  );
}

/** Read-only: what the key's roles grant, changed by editing the roles themselves. */
function PermissionsThroughRoles({ roles }: { roles: string[] }) {
  const heldRoles = useQueries({
    queries: roles.map((role) => trpc.permissions.getRole.queryOptions({ role })),
  });
  const failedRole = heldRoles.find((role) => role.error);
  const slugs = new Set(heldRoles.flatMap((role) => role.data?.permissions.map(({ slug }) => slug) ?? []));

  return (
    <>
      <h3>Permissions through roles</h3>
      {heldRoles.some((role) => role.isPending) ? <BlockSkeleton height="2rem" /> : null}
      {failedRole?.error ? <ErrorMessage error={failedRole.error} onRetry={() => void failedRole.refetch()} /> : null}
      {slugs.size === 0 ? <p className="hint">None.</p> : null}
      <ul className="chips">
        {[...slugs].sort().map((slug) => (
          <li key={slug}>
            <code>{slug}</code>
          </li>
        ))}
      </ul>
    </>
  );
}
