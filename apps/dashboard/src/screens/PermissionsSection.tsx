import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FormDialog } from '../components/FormDialog.tsx';
import { Pager, useSearchedPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Permission = RouterOutputs['permissions']['listPermissions']['data'][number];

export function PermissionsSection() {
  const queryClient = useQueryClient();
  const { pages, search, setSearch, appliedSearch } = useSearchedPages();
  const permissions = useQuery(
    trpc.permissions.listPermissions.queryOptions({
      limit: 50,
      cursor: pages.cursor,
      search: appliedSearch,
    }),
  );
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Permission | null>(null);
  const remove = useMutation(
    trpc.permissions.deletePermission.mutationOptions({
      onSuccess: () => {
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() });
      },
    }),
  );

  return (
    <section className="panel" aria-labelledby="permissions-title">
      <div className="page-header">
        <h2 id="permissions-title">Permissions</h2>
        <PermittedButton
          permission={{ resourceType: 'rbac', resourceId: '*', action: 'create_permission' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create permission
        </PermittedButton>
      </div>
      <div className="field">
        <label htmlFor="permission-search">Search permissions</label>
        <input
          id="permission-search"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      <DataTable
        caption="Permissions of this workspace"
        columns={['Slug', 'Name', 'Description', 'Actions']}
        query={permissions}
        rows={permissions.data?.data}
        loadingLabel="permissions"
        emptyMessage={
          appliedSearch
            ? 'No permission matches the search.'
            : 'No permissions yet. Create one, or add slugs to a role.'
        }
        rowKey={(permission) => permission.id}
        renderCells={(permission) => (
          <>
            <th scope="row">
              <code>{permission.slug}</code>
            </th>
            <td>{permission.name}</td>
            <td>{permission.description ?? '—'}</td>
            <td data-phone="menu">
              <RowMenu
                label={`permission ${permission.slug}`}
                actions={[
                  {
                    label: 'Delete permission',
                    icon: Trash2,
                    danger: true,
                    permission: { resourceType: 'rbac', resourceId: '*', action: 'delete_permission' },
                    onSelect: () => setDeleting(permission),
                  },
                ]}
              />
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={permissions.data?.pagination.cursor} label="Permissions" />
      <CreatePermissionDialog
        open={creating}
        onClose={() => setCreating(false)}
        // The list then shows the new permission, whatever page or search it showed before.
        onCreated={(slug) => setSearch(slug)}
      />
      <ConfirmDialog
        title="Delete permission"
        open={deleting !== null}
        confirmLabel="Delete permission"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate({ permission: deleting.id })}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Delete <code>{deleting?.slug}</code>? Keys and roles holding it lose it at once.
        </p>
      </ConfirmDialog>
    </section>
  );
}

interface CreatePermissionDialogProps {
  open: boolean;
  onClose: () => void;
  onCreated: (slug: string) => void;
}

function CreatePermissionDialog({ open, onClose, onCreated }: CreatePermissionDialogProps) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: '', slug: '', description: '' });
  const create = useMutation(trpc.permissions.createPermission.mutationOptions());

  const close = () => {
    setForm({ name: '', slug: '', description: '' });
    create.reset();
    onClose();
  };

  const submit = () => {
    create.mutate(
      { name: form.name.trim(), slug: form.slug.trim(), description: form.description.trim() || undefined },
      {
        onSuccess: () => {
          void queryClient.invalidateQueries({ queryKey: trpc.permissions.pathKey() });
          close();
          onCreated(form.slug.trim());
        },
      },
    );
  };

  return (
    <FormDialog
      title="Create permission"
      open={open}
      onClose={close}
      onSubmit={submit}
      submitLabel="Create"
      mutation={create}
      permission={{ resourceType: 'rbac', resourceId: '*', action: 'create_permission' }}
    >
      <div className="field">
        <label htmlFor="permission-slug">Slug</label>
        <input
          id="permission-slug"
          required
          placeholder="documents.read"
          value={form.slug}
          onChange={(event) => setForm({ ...form, slug: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="permission-name">Name</label>
        <input
          id="permission-name"
          required
          value={form.name}
          onChange={(event) => setForm({ ...form, name: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="permission-description">Description</label>
        <input
          id="permission-description"
          value={form.description}
          onChange={(event) => setForm({ ...form, description: event.target.value })}
        />
      </div>
    </FormDialog>
  );
}
