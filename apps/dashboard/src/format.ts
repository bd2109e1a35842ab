// Times name their zone ("Nov 28, 2026, 12:17 PM GMT+1"): a reader in another zone, or a screenshot
// in a ticket, is never left to guess.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const zoneName = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The reader's time zone as it is written after a time, e.g. "GMT+1" or "UTC", at that moment. */
export function timeZoneOf(epochMs: number): string {
  return zoneName.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

/** Epoch milliseconds as a local date and time with its zone; '—' for none. */
export function formatTime(epochMs: number | null | undefined): string {
  return epochMs === null || epochMs === undefined ? '—' : `${dateTime.format(epochMs)} ${timeZoneOf(epochMs)}`;
}

/** As formatTime, to the second: for events seconds apart (verifications, audit entries). */
export function formatTimeSeconds(epochMs: number): string {
  return `${dateTimeSeconds.format(epochMs)} ${timeZoneOf(epochMs)}`;
}

/** The value of an `<input type="datetime-local">` as epoch milliseconds (local time), or undefined. */
export function parseLocalDateTime(value: string): number | undefined {
  if (value === '') return undefined;
  const epochMs = new Date(value).getTime();
  return Number.isNaN(epochMs) ? undefined : epochMs;
}

/** Epoch milliseconds as the value of an `<input type="datetime-local">`. */
export function toLocalDateTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const number = new Intl.NumberFormat();
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** A number as people read it: 4000 → '4,000' (in the reader's locale). */
export function formatNumber(value: number): string {
  return number.format(value);
}

/**
 * A number for a narrow place (a table cell): grouped up to a million, then short ("1.2M", "9,007T").
 * Where it is shortened, the full number belongs in the element's title.
 */
export function formatCompactNumber(value: number): string {
  return Math.abs(value) < 1_000_000 ? number.format(value) : compact.format(value);
}

/** A count with its noun: 1 permission, 2 permissions (`plural` for nouns not made with -s). */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : plural}`;
}

/** Milliseconds as the shortest exact unit: 60000 → '1 min', 3600000 → '1 h'. */
export function formatDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms} ms`;
}

/** Meta as shown in a textarea: pretty JSON, or empty for none. */
export function formatMeta(meta: Record<string, unknown> | undefined): string {
  return meta ? JSON.stringify(meta, null, 2) : '';
}

/** The meta typed in a textarea: an object, null for an empty field (clears it), or what is wrong with it. */
export function parseMeta(text: string): { meta: Record<string, unknown> | null } | { problem: string } {
  if (text.trim() === '') return { meta: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Meta is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'Meta must be a JSON object, like {"plan": "pro"}.' };
  }
  return { meta: value as Record<string, unknown> };
}
