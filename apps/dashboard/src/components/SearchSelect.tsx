import type { UseQueryResult } from '@tanstack/react-query';
import { useId } from 'react';
import { formatCount } from '../format.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

export interface PickerItem {
  id: string;
  label: string;
}

interface SearchSelectProps {
  /** The select's label, e.g. "Key". */
  label: string;
  /** e.g. "keys": used in "Search keys" and the status line. */
  noun: string;
  /** The first option, meaning "no filter", e.g. "All keys". */
  anyLabel: string;
  selected: PickerItem | null;
  onSelect: (item: PickerItem | null) => void;
  search: string;
  onSearchChange: (search: string) => void;
  /** The matches of the current search, one page of them. */
  matches: UseQueryResult<{ items: PickerItem[]; hasMore: boolean }>;
  /** Set when nothing can be picked yet; says why, and disables the picker. */
  unavailable?: string;
}

/**
 * A select filled from a server-side search: typing narrows the options, the select picks one.
 * Both are native controls, so the keyboard and screen readers work as everywhere else.
 */
export function SearchSelect({
  label,
  noun,
  anyLabel,
  selected,
  onSelect,
  search,
  onSearchChange,
  matches,
  unavailable,
}: SearchSelectProps) {
  const id = useId();
  const items = matches.data?.items ?? [];
  // The pick stays an option when a later search no longer matches it.
  const options = selected && !items.some((item) => item.id === selected.id) ? [selected, ...items] : items;

  const status = (() => {
    if (unavailable) return unavailable;
    if (matches.isPending) return `Loading ${noun}…`;
    if (matches.error) return `Could not load the ${noun}.`;
    if (items.length === 0) return search ? `No ${noun} match “${search}”.` : `No ${noun} yet.`;
    return matches.data?.hasMore
      ? `First ${formatCount(items.length, 'match', 'matches')}; type to narrow.`
      : `${items.length} found.`;
  })();

  return (
    <div className="search-select">
      <div className="field">
        <label htmlFor={`${id}-search`}>Search {noun}</label>
        <input
          id={`${id}-search`}
          type="search"
          value={search}
          disabled={unavailable !== undefined}
          onChange={(event) => onSearchChange(event.target.value)}
          aria-describedby={`${id}-status`}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-select`}>{label}</label>
        <select
          id={`${id}-select`}
          value={selected?.id ?? ''}
          disabled={unavailable !== undefined}
          onChange={(event) => onSelect(options.find((item) => item.id === event.target.value) ?? null)}
          aria-describedby={`${id}-status`}
        >
          <option value="">{anyLabel}</option>
          {options.map((item) => (
            <option key={item.id} value={item.id}>
              {item.label}
            </option>
          ))}
        </select>
      </div>
      <p id={`${id}-status`} className="hint" aria-live="polite">
        {status}
      </p>
      {matches.error && !unavailable ? (
        <ErrorMessage error={matches.error} onRetry={() => void matches.refetch()} />
      ) : null}
    </div>
  );
}
