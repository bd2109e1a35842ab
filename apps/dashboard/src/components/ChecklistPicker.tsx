import type { UseQueryResult } from '@tanstack/react-query';
import { useId } from 'react';
import { ErrorMessage } from './ErrorMessage.tsx';
import { BlockSkeleton } from './Skeleton.tsx';

interface ChecklistPickerProps {
  legend: string;
  /** e.g. "roles": used in "Search roles" and the status lines. */
  noun: string;
  selected: readonly string[];
  onChange: (selected: string[]) => void;
  search: string;
  onSearchChange: (search: string) => void;
  /** One page of matches for the current search; `hasMore` when the server has others. */
  options: UseQueryResult<{ values: string[]; hasMore: boolean }>;
  /** What to do when there is nothing to pick at all. */
  emptyHint: string;
}

/**
 * Picks names from a server-searched list: checkboxes for the matches of the search, and the
 * selection as removable chips, so chosen items stay visible whatever the search shows.
 */
export function ChecklistPicker({
  legend,
  noun,
  selected,
  onChange,
  search,
  onSearchChange,
  options,
  emptyHint,
}: ChecklistPickerProps) {
  const searchId = useId();
  const toggle = (value: string, on: boolean) => {
    const rest = selected.filter((item) => item !== value);
    onChange(on ? [...rest, value] : rest);
  };
  const matches = options.data?.values;

  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="field">
        <label htmlFor={searchId}>Search {noun}</label>
        <input id={searchId} type="search" value={search} onChange={(event) => onSearchChange(event.target.value)} />
      </div>
      {options.isPending ? <BlockSkeleton height="4rem" /> : null}
      {options.error ? <ErrorMessage error={options.error} onRetry={() => void options.refetch()} /> : null}
      {matches?.length === 0 ? <p className="hint">{search ? `No ${noun} match the search.` : emptyHint}</p> : null}
      <div className="checkbox-grid">
        {matches?.map((value) => (
          <label key={value} className="checkbox">
            <input
              type="checkbox"
              checked={selected.includes(value)}
              onChange={(event) => toggle(value, event.target.checked)}
            />
            <code>{value}</code>
          </label>
        ))}
      </div>
      {options.data?.hasMore ? <p className="hint">Showing the first matches; search to find others.</p> : null}
      <p className="hint">Selected ({selected.length}):</p>
      {selected.length === 0 ? <p className="hint">None.</p> : null}
      <ul className="chips">
        {selected.map((value) => (
          <li key={value}>
            <code>{value}</code>
            <button type="button" className="link" onClick={() => toggle(value, false)}>
              Remove<span className="visually-hidden"> {value}</span>
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
