import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Pencil, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { Pager, useSearchedPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { PermissionChecklist } from '../components/RbacChecklists.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Role = RouterOutputs['permissions']['listRoles']['data'][number];

const rbac = (action: string) => ({ resourceType: 'rbac', resourceId: '*', action }) as const;
/** setRolePermissions replaces the role's permissions, which may add and remove. */
const SET_ROLE_PERMISSIONS = [rbac('add_permission_to_role'), rbac('remove_permission_from_role')];

export function RolesSection() {
  const queryClient = useQueryClient();
  const { pages, search, setSearch, appliedSearch } = useSearchedPages();
  const roles = useQuery(
    trpc.permissions.listRoles.queryOptions({ limit: 50, cursor: pages.cursor, search: appliedSearch }),
  );
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
      <div className="field">
        <label htmlFor="role-search">Search roles</label>
        <input id="role-search" type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
      </div>
      <DataTable
        caption="Roles of this workspace"
        columns={['Role', 'Description', 'Permissions', 'Actions']}
        query={roles}
        rows={roles.data?.data}
        loadingLabel="roles"
        emptyMessage={
          appliedSearch
            ? 'No role matches the search.'
            : 'No roles yet. Create one to give keys a set of permissions at once.'
        }
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
            <td data-phone="menu">
              <RowMenu
                label={`role ${role.name}`}
                actions={[
                  {
                    label: 'Edit permissions',
                    icon: Pencil,
                    permission: SET_ROLE_PERMISSIONS,
                    onSelect: () => setEditing(role),
                  },
                  'separator',
                  {
                    label: 'Delete role',
                    icon: Trash2,
                    danger: true,
                    permission: { resourceType: 'rbac', resourceId: '*', action: 'delete_role' },
                    onSelect: () => setDeleting(role),
                  },
                ]}
              />
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={roles.data?.pagination.cursor} label="Roles" />
      {creating ? (
        <RoleDialog
          onClose={() => setCreating(false)}
          // The list then shows the new role, whatever page or search it showed before.
          onCreated={(name) => setSearch(name)}
        />
      ) : null}
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

interface RoleDialogProps {
  /** The role whose permissions to replace; none: create a role. */
  role?: Role;
  onClose: () => void;
  onCreated?: (name: string) => void;
}

/** Creates a role, or with `role` replaces the permissions of an existing one, picked from the workspace's. */
function RoleDialog({ role, onClose, onCreated }: RoleDialogProps) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [slugs, setSlugs] = useState(role ? role.permissions.map((permission) => permission.slug) : []);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() });
  const create = useMutation(
    trpc.permissions.createRole.mutationOptions({
      onSuccess: () => {
        void invalidate();
        onClose();
        onCreated?.(name.trim());
      },
    }),
  );
  const setPermissions = useMutation(
    trpc.permissions.setRolePermissions.mutationOptions({
      onSuccess: () => {
        void invalidate();
        onClose();
      },
    }),
  );

  const submit = () => {
    if (role) setPermissions.mutate({ roleId: role.id, permissions: slugs });
    else create.mutate({ name: name.trim(), description: description.trim() || undefined, permissions: slugs });
  };

  return (
    <FormDialog
      title={role ? `Permissions of ${role.name}` : 'Create role'}
      open
      onClose={onClose}
      onSubmit={submit}
      submitLabel={role ? 'Save permissions' : 'Create'}
      mutation={role ? setPermissions : create}
      permission={
        role
          ? SET_ROLE_PERMISSIONS
          : [rbac('create_role'), ...(slugs.length > 0 ? [rbac('add_permission_to_role')] : [])]
      }
      wide
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
      <PermissionChecklist legend="Permissions" selected={slugs} onChange={setSlugs} />
    </FormDialog>
  );
}
