import type { PermissionTuple } from '@keyplane/core/rules';
import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { ChecklistPicker } from './ChecklistPicker.tsx';

const PAGE_SIZE = 50;

type Names = UseQueryResult<{ values: string[]; hasMore: boolean }>;

interface RbacChecklistProps {
  legend: string;
  selected: readonly string[];
  onChange: (selected: string[]) => void;
}

/** The workspace's roles to pick from, searched on the server. */
export function RoleChecklist(props: RbacChecklistProps) {
  return (
    <RbacChecklist
      {...props}
      noun="roles"
      readPermission={{ resourceType: 'rbac', resourceId: '*', action: 'read_role' }}
      useOptions={useRoleNames}
    />
  );
}

/**
 * The workspace's permissions to pick from, searched on the server: the one picker for a key's
 * permissions and a role's, so nothing typed creates a permission by accident.
 */
export function PermissionChecklist(props: RbacChecklistProps) {
  return (
    <RbacChecklist
      {...props}
      noun="permissions"
      readPermission={{ resourceType: 'rbac', resourceId: '*', action: 'read_permission' }}
      useOptions={usePermissionSlugs}
    />
  );
}

function useRoleNames(search: string | undefined, enabled: boolean): Names {
  return useQuery({
    ...trpc.permissions.listRoles.queryOptions({ limit: PAGE_SIZE, search }),
    enabled,
    select: (page) => ({ values: page.data.map((role) => role.name), hasMore: page.pagination.hasMore }),
  });
}

function usePermissionSlugs(search: string | undefined, enabled: boolean): Names {
  return useQuery({
    ...trpc.permissions.listPermissions.queryOptions({ limit: PAGE_SIZE, search }),
    enabled,
    select: (page) => ({ values: page.data.map(({ slug }) => slug), hasMore: page.pagination.hasMore }),
  });
}

interface RbacChecklistInnerProps extends RbacChecklistProps {
  noun: 'roles' | 'permissions';
  /** What listing the names needs: without it the picker is not shown, and says why. */
  readPermission: PermissionTuple;
  useOptions: (search: string | undefined, enabled: boolean) => Names;
}

function RbacChecklist({ legend, noun, selected, onChange, readPermission, useOptions }: RbacChecklistInnerProps) {
  const readMissing = useMissingPermission(readPermission);
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim());
  const options = useOptions(debouncedSearch || undefined, readMissing === undefined);

  if (readMissing) {
    return (
      <p className="hint">
        {legend} not shown: {readMissing}
      </p>
    );
  }
  return (
    <ChecklistPicker
      legend={legend}
      noun={noun}
      selected={selected}
      onChange={onChange}
      search={search}
      onSearchChange={setSearch}
      options={options}
      emptyHint={`No ${noun} yet: create them under Roles & permissions.`}
    />
  );
}
