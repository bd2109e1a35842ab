import { useId } from 'react';

export interface RatelimitRow {
  name: string;
  limit: number;
  /** Milliseconds. */
  duration: number;
  autoApply: boolean;
}

/** Stored limits as editable rows: their ids are not part of an update, which replaces limits by name. */
export function toRatelimitRows(stored: readonly RatelimitRow[] | undefined): RatelimitRow[] {
  return (stored ?? []).map(({ name, limit, duration, autoApply }) => ({ name, limit, duration, autoApply }));
}

interface RatelimitsEditorProps {
  rows: RatelimitRow[];
  onChange: (rows: RatelimitRow[]) => void;
}

/** Named limits (requests per window) as editable rows. */
export function RatelimitsEditor({ rows, onChange }: RatelimitsEditorProps) {
  const idPrefix = useId();
  const update = (index: number, change: Partial<RatelimitRow>) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));

  return (
    <fieldset>
      <legend>Rate limits</legend>
      {rows.length === 0 ? <p className="hint">No limits. Use “Add limit” to add one.</p> : null}
      {rows.map((row, index) => {
        const id = `${idPrefix}-${index}`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; names may repeat while typing.
          <div key={index} className="inline-form">
            <div className="field">
              <label htmlFor={`${id}-name`}>Name</label>
              <input
                id={`${id}-name`}
                required
                minLength={3}
                value={row.name}
                onChange={(event) => update(index, { name: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-limit`}>Limit</label>
              <input
                id={`${id}-limit`}
                type="number"
                min={1}
                required
                value={row.limit}
                onChange={(event) => update(index, { limit: Number(event.target.value) })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-duration`}>Window (seconds)</label>
              <input
                id={`${id}-duration`}
                type="number"
                min={1}
                required
                value={row.duration / 1000}
                onChange={(event) => update(index, { duration: Number(event.target.value) * 1000 })}
              />
            </div>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={row.autoApply}
                onChange={(event) => update(index, { autoApply: event.target.checked })}
              />
              Auto-apply
            </label>
            <button type="button" onClick={() => onChange(rows.filter((_, at) => at !== index))}>
              Remove limit<span className="visually-hidden"> {row.name}</span>
            </button>
          </div>
        );
      })}
      <button
        type="button"
        onClick={() => onChange([...rows, { name: '', limit: 100, duration: 60_000, autoApply: true }])}
      >
        Add limit
      </button>
    </fieldset>
  );
}
