import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { type PickerItem, SearchSelect } from './SearchSelect.tsx';
import { BlockSkeleton } from './Skeleton.tsx';

interface PermissionPickerProps {
  selected: readonly string[];
  onChange: (permissions: string[]) => void;
}

const RESOURCE_TYPE_LABELS: Record<string, string> = {
  api: 'APIs and keys',
  ratelimit: 'Rate limits',
  rbac: 'Roles and permissions',
  identity: 'Identities',
  workspace: 'Workspace',
};

/**
 * Root-key permissions (`<resourceType>.<resourceId>.<action>`) grouped by resource type, from the
 * server's catalogue. APIs and rate-limit namespaces can be granted for all (`*`) or for one chosen
 * by searching the workspace's; the other types are workspace-wide.
 */
export function PermissionPicker({ selected, onChange }: PermissionPickerProps) {
  const catalog = useQuery(
    trpc.rootKeys.permissionCatalog.queryOptions(undefined, { staleTime: Number.POSITIVE_INFINITY }),
  );
  const [search, setSearch] = useState('');
  const searchId = useId();
  const toggle = (permission: string, on: boolean) => {
    const rest = selected.filter((item) => item !== permission);
    onChange(on ? [...rest, permission] : rest);
  };
  const words = search.trim().toLowerCase();
  const groups = catalog.data?.resourceTypes
    .map(({ resourceType, actions }) => ({
      resourceType,
      actions: actions.filter((action) => `${resourceType}.${action}`.toLowerCase().includes(words)),
    }))
    .filter((group) => group.actions.length > 0);

  return (
    <div className="permission-picker">
      <div className="field">
        <label htmlFor={searchId}>Search permissions</label>
        <input
          id={searchId}
          type="search"
          placeholder="create_key, api, read…"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      {catalog.isPending ? <BlockSkeleton height="20rem" /> : null}
      {catalog.error ? <ErrorMessage error={catalog.error} onRetry={() => void catalog.refetch()} /> : null}
      {groups?.length === 0 ? <p className="hint">No permission matches the search.</p> : null}
      {groups?.map(({ resourceType, actions }) => (
        <PermissionGroup
          key={resourceType}
          resourceType={resourceType}
          actions={actions}
          selected={selected}
          onToggle={toggle}
        />
      ))}
      <section aria-label="Selected permissions">
        <h3>Selected permissions ({selected.length})</h3>
        {selected.length === 0 ? <p className="hint">Choose at least one.</p> : null}
        <ul className="chips">
          {selected.map((permission) => (
            <li key={permission}>
              <code>{permission}</code>
              <button type="button" className="link" onClick={() => toggle(permission, false)}>
                Remove<span className="visually-hidden"> {permission}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

interface PermissionGroupProps {
  resourceType: string;
  actions: string[];
  selected: readonly string[];
  onToggle: (permission: string, on: boolean) => void;
}

function PermissionGroup({ resourceType, actions, selected, onToggle }: PermissionGroupProps) {
  // Nothing picked grants the actions on all of them (`*`).
  const [scope, setScope] = useState<PickerItem | null>(null);
  const scoped = resourceType === 'api' || resourceType === 'ratelimit';

  return (
    <fieldset>
      <legend>
        {RESOURCE_TYPE_LABELS[resourceType] ?? resourceType} <code>{resourceType}</code>
      </legend>
      {scoped ? <ScopeSelect resourceType={resourceType} selected={scope} onSelect={setScope} /> : null}
      <div className="checkbox-grid">
        {actions.map((action) => {
          const permission = `${resourceType}.${scope?.id ?? '*'}.${action}`;
          return (
            <label key={action} className="checkbox">
              <input
                type="checkbox"
                checked={selected.includes(permission)}
                onChange={(event) => onToggle(permission, event.target.checked)}
              />
              <code>{permission}</code>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}

interface ScopeSelectProps {
  resourceType: 'api' | 'ratelimit';
  selected: PickerItem | null;
  onSelect: (scope: PickerItem | null) => void;
}

const SCOPE_PAGE_SIZE = 20;

/** One API or namespace, found by server-side search however many the workspace has. */
function ScopeSelect({ resourceType, selected, onSelect }: ScopeSelectProps) {
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim());
  const input = { limit: SCOPE_PAGE_SIZE, search: debouncedSearch || undefined };
  const pickerPage = (page: { data: { id: string; name: string }[]; pagination: { hasMore: boolean } }) => ({
    items: page.data.map((item) => ({ id: item.id, label: `${item.name} (${item.id})` })),
    hasMore: page.pagination.hasMore,
  });
  const apis = useQuery({
    ...trpc.apis.listApis.queryOptions(input),
    enabled: resourceType === 'api',
    placeholderData: keepPreviousData,
    select: pickerPage,
  });
  const namespaces = useQuery({
    ...trpc.ratelimit.listNamespaces.queryOptions(input),
    enabled: resourceType === 'ratelimit',
    placeholderData: keepPreviousData,
    select: pickerPage,
  });

  return (
    <SearchSelect
      label={resourceType === 'api' ? 'Which APIs' : 'Which namespaces'}
      noun={resourceType === 'api' ? 'APIs' : 'namespaces'}
      anyLabel={resourceType === 'api' ? 'All APIs (*)' : 'All namespaces (*)'}
      selected={selected}
      onSelect={onSelect}
      search={search}
      onSearchChange={setSearch}
      matches={resourceType === 'api' ? apis : namespaces}
    />
  );
}
