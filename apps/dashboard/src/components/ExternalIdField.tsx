import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';

interface ExternalIdFieldProps {
  value: string;
  onChange: (externalId: string) => void;
  hint: string;
}

/**
 * A key's identity by external id, with the workspace's identities suggested as the user types
 * (when the root key may list them: listing checks every identity of the page).
 */
export function ExternalIdField({ value, onChange, hint }: ExternalIdFieldProps) {
  const id = useId();
  const search = useDebouncedValue(value.trim());
  const readMissing = useMissingPermission({ resourceType: 'identity', resourceId: '*', action: 'read_identity' });
  const suggestions = useQuery({
    ...trpc.identities.listIdentities.queryOptions({ limit: 20, search: search || undefined }),
    enabled: readMissing === undefined,
  });

  return (
    <div className="field">
      <label htmlFor={id}>External id</label>
      <input
        id={id}
        pattern="[a-zA-Z0-9_.\-]+"
        maxLength={255}
        list={`${id}-suggestions`}
        autoComplete="off"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-describedby={`${id}-hint`}
      />
      <datalist id={`${id}-suggestions`}>
        {suggestions.data?.data.map((option) => (
          <option key={option.id} value={option.externalId} />
        ))}
      </datalist>
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
    </div>
  );
}
