import type { PermissionTuple } from '@keyplane/core/rules';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { useMissingAnyGrant, useMissingPermission, useMissingPermissionCheck } from '../access.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { type PickerItem, SearchSelect } from '../components/SearchSelect.tsx';
import { TimeRangeControls, useTimeWindow } from '../components/TimeRangeControls.tsx';
import {
  ChartPanel,
  creditSummary,
  decisionSummary,
  outcomeSummary,
  useDecisionSeries,
  useVerificationSeries,
} from '../components/UsageCharts.tsx';
import { trpc } from '../trpc.ts';
import type { VerificationFilters } from '../usageQueries.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';

export function Usage() {
  const timeWindow = useTimeWindow('day');
  const [filters, setFilters] = useState<VerificationFilters>({});
  // A panel the root key may not read says so instead of asking for a 403.
  const verificationsMissing = useMissingAnyGrant('api', 'read_analytics');
  const ratelimitsMissing = useMissingAnyGrant('ratelimit', 'read_analytics');
  const verifications = useVerificationSeries(timeWindow, filters, verificationsMissing);
  const ratelimits = useDecisionSeries(timeWindow, undefined, ratelimitsMissing);
  const applied = Object.values(filters).filter(Boolean).length;

  return (
    <>
      <h1 tabIndex={-1}>Usage</h1>
      <TimeRangeControls timeWindow={timeWindow} />
      <FilterDisclosure label={applied > 0 ? `Filters (${applied} applied)` : 'Filters'}>
        <VerificationFilterForm
          onApply={(next) => {
            setFilters(next);
            timeWindow.refresh();
          }}
        />
      </FilterDisclosure>

      <ChartPanel
        title="Verifications by outcome"
        query={verifications.query}
        timeWindow={timeWindow}
        series={verifications.outcomes}
        summary={outcomeSummary(verifications.outcomes)}
        missing={verificationsMissing}
      />
      <ChartPanel
        title="Credits spent"
        query={verifications.query}
        timeWindow={timeWindow}
        series={verifications.credits}
        summary={creditSummary(verifications.credits)}
        failureNote="Not available: the verifications did not load (see above)."
        missing={verificationsMissing}
      />
      <ChartPanel
        title="Rate-limit decisions"
        query={ratelimits.query}
        timeWindow={timeWindow}
        series={ratelimits.decisions}
        summary={decisionSummary(ratelimits.decisions)}
        missing={ratelimitsMissing}
        note={
          applied > 0
            ? 'Not filtered: rate-limit decisions belong to namespaces, not to an API, key or identity, so this chart shows the whole workspace.'
            : undefined
        }
      />
    </>
  );
}

/** Wide screens have room for the filters; a phone starts with them folded under one line. */
const FILTERS_OPEN_AT = '(min-width: 40.01rem)';

function FilterDisclosure({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(() => window.matchMedia(FILTERS_OPEN_AT).matches);
  return (
    <details className="filter-disclosure" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{label}</summary>
      {children}
    </details>
  );
}

const PICKER_PAGE_SIZE = 20;

/** API, key and identity filters, applied together on submit. Keys and identities are found by server-side search. */
function VerificationFilterForm({ onApply }: { onApply: (filters: VerificationFilters) => void }) {
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 100 }));
  const [apiId, setApiId] = useState('');
  const [key, setKey] = useState<PickerItem | null>(null);
  const [keySearch, setKeySearch] = useState('');
  const [identity, setIdentity] = useState<PickerItem | null>(null);
  const [identitySearch, setIdentitySearch] = useState('');
  const debouncedKeySearch = useDebouncedValue(keySearch.trim());
  const debouncedIdentitySearch = useDebouncedValue(identitySearch.trim());
  const keysUnavailable = useKeysUnavailable(apiId, apis.data?.data ?? []);

  const keys = useQuery({
    ...trpc.apis.listKeys.queryOptions({
      apiId,
      limit: PICKER_PAGE_SIZE,
      search: debouncedKeySearch || undefined,
    }),
    // Keys are listed per API, and only of an API whose keys the root key may read.
    enabled: keysUnavailable === undefined,
    placeholderData: keepPreviousData,
    select: (page) => ({
      items: page.data.map((item) => ({ id: item.keyId, label: `${item.name ?? item.keyId} (${item.start}…)` })),
      hasMore: page.pagination.hasMore,
    }),
  });
  // Listing checks read_identity on each identity of the page: only the wildcard is sure to pass.
  const identitiesMissing = useMissingPermission({
    resourceType: 'identity',
    resourceId: '*',
    action: 'read_identity',
  });
  const identities = useQuery({
    ...trpc.identities.listIdentities.queryOptions({
      limit: PICKER_PAGE_SIZE,
      search: debouncedIdentitySearch || undefined,
    }),
    enabled: identitiesMissing === undefined,
    placeholderData: keepPreviousData,
    select: (page) => ({
      items: page.data.map((item) => ({ id: item.id, label: item.externalId })),
      hasMore: page.pagination.hasMore,
    }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ apiId: apiId || undefined, keyId: key?.id, identityId: identity?.id });
  };

  return (
    <form onSubmit={submit} className="inline-form">
      <div className="field">
        <label htmlFor="usage-api">API</label>
        <select
          id="usage-api"
          value={apiId}
          onChange={(event) => {
            setApiId(event.target.value);
            // A key belongs to one API: a pick from another would filter everything out.
            setKey(null);
            setKeySearch('');
          }}
          aria-describedby="usage-api-status"
        >
          <option value="">All APIs</option>
          {apis.data?.data.map((api) => (
            <option key={api.id} value={api.id}>
              {api.name}
            </option>
          ))}
        </select>
        <p id="usage-api-status" className="hint" aria-live="polite">
          {apis.isPending ? 'Loading APIs…' : null}
          {apis.data?.data.length === 0 ? 'No APIs yet.' : null}
        </p>
        {apis.error ? <ErrorMessage error={apis.error} onRetry={() => void apis.refetch()} /> : null}
      </div>
      <SearchSelect
        label="Key"
        noun="keys"
        anyLabel="All keys"
        selected={key}
        onSelect={setKey}
        search={keySearch}
        onSearchChange={setKeySearch}
        matches={keys}
        unavailable={keysUnavailable}
      />
      <SearchSelect
        label="Identity"
        noun="identities"
        anyLabel="All identities"
        selected={identity}
        onSelect={setIdentity}
        search={identitySearch}
        onSearchChange={setIdentitySearch}
        matches={identities}
        unavailable={identitiesMissing}
      />
      <button type="submit">Apply filters</button>
    </form>
  );
}

/**
 * Why the key picker cannot list keys, if it cannot: keys are listed per API, and only for an API
 * whose keys the root key may read (`read_key`), which the reason names.
 */
function useKeysUnavailable(apiId: string, apis: readonly { id: string; name: string }[]): string | undefined {
  const missingFor = useMissingPermissionCheck();
  const missingAnywhere = useMissingAnyGrant('api', 'read_key');
  if (missingAnywhere) return missingAnywhere;
  const readKey = (id: string): PermissionTuple => ({ resourceType: 'api', resourceId: id, action: 'read_key' });
  if (apiId !== '') {
    const missing = missingFor(readKey(apiId));
    const name = apis.find((api) => api.id === apiId)?.name ?? apiId;
    return missing ? `${missing} Keys of ${name} cannot be picked.` : undefined;
  }
  const unreadable = apis.filter((api) => missingFor(readKey(api.id)) !== undefined).map((api) => api.name);
  return unreadable.length === 0
    ? 'Choose an API to pick one of its keys.'
    : `Choose an API to pick one of its keys; not ${unreadable.join(' or ')}, whose keys your root key may not read (read_key).`;
}
