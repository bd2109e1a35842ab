import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { trpc } from '../trpc.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
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
 * from the workspace's list; the other types are workspace-wide.
 */
export function PermissionPicker({ selected, onChange }: PermissionPickerProps) {
  const catalog = useQuery(
    trpc.rootKeys.permissionCatalog.queryOptions(undefined, { staleTime: Number.POSITIVE_INFINITY }),
  );
  const toggle = (permission: string, on: boolean) => {
    const rest = selected.filter((item) => item !== permission);
    onChange(on ? [...rest, permission] : rest);
  };

  return (
    <div className="permission-picker">
      {catalog.isPending ? <BlockSkeleton height="20rem" /> : null}
      {catalog.error ? <ErrorMessage error={catalog.error} onRetry={() => void catalog.refetch()} /> : null}
      {catalog.data?.resourceTypes.map(({ resourceType, actions }) => (
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
  const [scope, setScope] = useState('*');
  const scopeId = useId();
  const scoped = resourceType === 'api' || resourceType === 'ratelimit';

  return (
    <fieldset>
      <legend>
        {RESOURCE_TYPE_LABELS[resourceType] ?? resourceType} <code>{resourceType}</code>
      </legend>
      {scoped ? (
        <div className="field">
          <label htmlFor={scopeId}>{resourceType === 'api' ? 'Which APIs' : 'Which namespaces'}</label>
          <ScopeSelect id={scopeId} resourceType={resourceType} value={scope} onChange={setScope} />
        </div>
      ) : null}
      <div className="checkbox-grid">
        {actions.map((action) => {
          const permission = `${resourceType}.${scope}.${action}`;
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
  id: string;
  resourceType: 'api' | 'ratelimit';
  value: string;
  onChange: (scope: string) => void;
}

function ScopeSelect({ id, resourceType, value, onChange }: ScopeSelectProps) {
  // The first page (100) covers the usual workspace; a larger one can still grant everything with `*`.
  const apis = useQuery({ ...trpc.apis.listApis.queryOptions({ limit: 100 }), enabled: resourceType === 'api' });
  const namespaces = useQuery({
    ...trpc.ratelimit.listNamespaces.queryOptions({ limit: 100 }),
    enabled: resourceType === 'ratelimit',
  });
  const list = resourceType === 'api' ? apis : namespaces;
  const options = list.data?.data.map((item) => ({ id: item.id, name: item.name })) ?? [];

  return (
    <>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="*">{resourceType === 'api' ? 'All APIs (*)' : 'All namespaces (*)'}</option>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name} ({option.id})
          </option>
        ))}
      </select>
      {list.isPending ? <span className="hint"> Loading…</span> : null}
      {list.error ? <ErrorMessage error={list.error} onRetry={() => void list.refetch()} /> : null}
    </>
  );
}
