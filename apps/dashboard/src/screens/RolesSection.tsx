import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Role = RouterOutputs['permissions']['listRoles']['data'][number];

/** Permission slugs typed one per line or separated by commas or spaces. */
function parseSlugs(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export function RolesSection() {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const roles = useQuery(trpc.permissions.listRoles.queryOptions({ limit: 50, cursor: pages.cursor }));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Role | null>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const remove = useMutation(
    trpc.permissions.deleteRole.mutationOptions({
      onSuccess: () => {
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() });
      },
    }),
  );

  return (
    <section className="panel" aria-labelledby="roles-title">
      <div className="page-header">
        <h2 id="roles-title">Roles</h2>
        <PermittedButton
          permission={{ resourceType: 'rbac', resourceId: '*', action: 'create_role' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create role
        </PermittedButton>
      </div>
      <DataTable
        caption="Roles of this workspace"
        columns={['Role', 'Description', 'Permissions', 'Actions']}
        query={roles}
        rows={roles.data?.data}
        loadingLabel="roles"
        emptyMessage="No roles yet. Create one to give keys a set of permissions at once."
        rowKey={(role) => role.id}
        renderCells={(role) => (
          <>
            <th scope="row">{role.name}</th>
            <td>{role.description ?? '—'}</td>
            <td>
              <ul className="chips">
                {role.permissions.map((permission) => (
                  <li key={permission.id}>
                    <code>{permission.slug}</code>
                  </li>
                ))}
              </ul>
            </td>
            <td>
              <div className="row-actions">
                <button type="button" onClick={() => setEditing(role)}>
                  Edit permissions<span className="visually-hidden"> of {role.name}</span>
                </button>
                <PermittedButton
                  permission={{ resourceType: 'rbac', resourceId: '*', action: 'delete_role' }}
                  className="danger"
                  onClick={() => setDeleting(role)}
                >
                  Delete<span className="visually-hidden"> role {role.name}</span>
                </PermittedButton>
              </div>
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={roles.data?.pagination.cursor} label="Roles" />
      {creating ? <RoleDialog onClose={() => setCreating(false)} /> : null}
      {editing ? <RoleDialog role={editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmDialog
        title="Delete role"
        open={deleting !== null}
        confirmLabel="Delete role"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate({ role: deleting.id })}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Delete the role <strong>{deleting?.name}</strong>? Keys holding it lose its permissions at once.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Creates a role, or with `role` replaces the permissions of an existing one. */
function RoleDialog({ role, onClose }: { role?: Role; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [slugs, setSlugs] = useState(role ? role.permissions.map((permission) => permission.slug).join('\n') : '');
  const onSuccess = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() });
    onClose();
  };
  const create = useMutation(trpc.permissions.createRole.mutationOptions({ onSuccess }));
  const setPermissions = useMutation(trpc.permissions.setRolePermissions.mutationOptions({ onSuccess }));

  const submit = () => {
    if (role) setPermissions.mutate({ roleId: role.id, permissions: parseSlugs(slugs) });
    else
      create.mutate({
        name: name.trim(),
        description: description.trim() || undefined,
        permissions: parseSlugs(slugs),
      });
  };

  return (
    <FormDialog
      title={role ? `Permissions of ${role.name}` : 'Create role'}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel={role ? 'Save permissions' : 'Create'}
      mutation={role ? setPermissions : create}
    >
      {role ? null : (
        <>
          <div className="field">
            <label htmlFor="role-name">Role name</label>
            <input id="role-name" required value={name} onChange={(event) => setName(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="role-description">Description</label>
            <input id="role-description" value={description} onChange={(event) => setDescription(event.target.value)} />
          </div>
        </>
      )}
      <div className="field">
        <label htmlFor="role-permissions">Permission slugs</label>
        <textarea
          id="role-permissions"
          rows={6}
          value={slugs}
          onChange={(event) => setSlugs(event.target.value)}
          aria-describedby="role-permissions-hint"
        />
        <p id="role-permissions-hint" className="hint">
          One per line. Slugs that do not exist yet are created.
        </p>
      </div>
    </FormDialog>
  );
}
