/** The reference product's problem names for analytics queries it refuses (all 400s). */
export type AnalyticsErrorCode =
  | 'invalid_analytics_query'
  | 'invalid_analytics_table'
  | 'invalid_analytics_function'
  | 'invalid_analytics_query_type'
  | 'query_range_exceeds_retention';

export interface QueryPosition {
  /** 0-based index of the character in the query. */
  offset: number;
  /** 1-based line and column, for people. */
  line: number;
  column: number;
}

/** A query the guard refuses, with where in the caller's text the problem is when that is known. */
export class AnalyticsQueryError extends Error {
  readonly code: AnalyticsErrorCode;
  readonly position: QueryPosition | undefined;
  /** The reason alone, without the position suffix that `message` carries. */
  readonly reason: string;

  constructor(code: AnalyticsErrorCode, reason: string, position?: QueryPosition) {
    super(position ? `${reason} (at line ${position.line}, column ${position.column})` : reason);
    this.name = 'AnalyticsQueryError';
    this.code = code;
    this.reason = reason;
    this.position = position;
  }
}

/** The position of a character offset in the query. */
export function positionAt(query: string, offset: number): QueryPosition {
  const clamped = Math.max(0, Math.min(offset, query.length));
  const before = query.slice(0, clamped);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { offset: clamped, line: before.split('\n').length, column: clamped - lineStart + 1 };
}

/**
 * Parse-tree locations are byte offsets into the UTF-8 text (PostgreSQL counts bytes); a person
 * counts characters.
 */
export function positionAtByte(query: string, byteOffset: number): QueryPosition {
  const prefix = Buffer.from(query, 'utf8').subarray(0, Math.max(0, byteOffset)).toString('utf8');
  return positionAt(query, prefix.length);
}
