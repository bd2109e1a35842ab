import { Plus, Trash2 } from 'lucide-react';
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

/**
 * A name no row has yet, so a new row starts valid: `requests`, then `requests-2`, … (a limit's
 * name is what verifications ask for it by).
 */
function unusedName(rows: readonly RatelimitRow[]): string {
  const taken = new Set(rows.map((row) => row.name));
  if (!taken.has('requests')) return 'requests';
  let suffix = 2;
  while (taken.has(`requests-${suffix}`)) suffix++;
  return `requests-${suffix}`;
}

/** Named limits (requests per window) as editable rows, on one aligned grid. */
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
          <div key={index} className="ratelimit-row">
            <div className="field">
              <label htmlFor={`${id}-name`}>Limit name</label>
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
            <label className="checkbox self-end" title="Applied to every verification, not only those that name it">
              <input
                type="checkbox"
                checked={row.autoApply}
                onChange={(event) => update(index, { autoApply: event.target.checked })}
              />
              Auto-apply
            </label>
            <button
              type="button"
              className="icon ghost self-end"
              aria-label={`Remove limit ${row.name}`}
              title="Remove limit"
              onClick={() => onChange(rows.filter((_, at) => at !== index))}
            >
              <Trash2 size={14} aria-hidden="true" />
            </button>
          </div>
        );
      })}
      <div>
        <button
          type="button"
          className="sm"
          onClick={() => onChange([...rows, { name: unusedName(rows), limit: 100, duration: 60_000, autoApply: true }])}
        >
          <Plus size={14} aria-hidden="true" />
          Add limit
        </button>
      </div>
    </fieldset>
  );
}
