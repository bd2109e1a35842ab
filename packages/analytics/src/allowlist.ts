/**
 * What a caller's query may use besides the public tables. Everything is deny-by-default: a
 * function, type, operator or syntax that is not listed here is refused before the query reaches
 * PostgreSQL. Every entry is a built-in without side effects whose output stays small; functions
 * that build large values from small inputs (repeat, lpad, string_agg, array_agg, power, …) are
 * left out so a 10,000-character query cannot make a result of gigabytes.
 */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // aggregates
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  // window functions
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  // date and time (`x AT TIME ZONE z` is timezone(z, x); EXTRACT is extract)
  'now',
  'date_trunc',
  'date_part',
  'date_bin',
  'extract',
  'to_timestamp',
  'to_char',
  'timezone',
  'age',
  'make_interval',
  // strings (TRIM is btrim/ltrim/rtrim, POSITION is position, SIMILAR TO uses similar_to_escape)
  'lower',
  'upper',
  'length',
  'char_length',
  'substring',
  'substr',
  'left',
  'right',
  'concat',
  'concat_ws',
  'btrim',
  'ltrim',
  'rtrim',
  'starts_with',
  'strpos',
  'position',
  'split_part',
  'similar_to_escape',
  // maths
  'round',
  'floor',
  'ceil',
  'ceiling',
  'abs',
  'trunc',
  'sign',
  'mod',
  // arrays (tags); unnest also works in FROM
  'cardinality',
  'array_length',
  'array_position',
  'unnest',
]);

/**
 * Cast targets, as the parse tree names them (without `pg_catalog.`): `integer` is int4, `bigint`
 * int8, `double precision` float8, `boolean` bool, `char(n)` bpchar. Casts to reg* types (catalog
 * lookups), xml and the like are refused.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'int2',
  'int4',
  'int8',
  'float4',
  'float8',
  'numeric',
  'text',
  'varchar',
  'bpchar',
  'bool',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'interval',
]);

/** Operators by their catalog name (`LIKE` is `~~`, `!=` arrives as `<>`). No `^`: numeric powers grow without bound. */
export const ALLOWED_OPERATORS: ReadonlySet<string> = new Set([
  '=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
  '~~',
  '!~~',
  '~~*',
  '!~~*',
  '~',
  '~*',
  '!~',
  '!~*',
  '@>',
  '<@',
  '&&',
]);

/** CURRENT_DATE and friends; CURRENT_USER, SESSION_USER, CURRENT_SCHEMA … describe the server and are refused. */
export const ALLOWED_SQL_VALUE_FUNCTIONS: ReadonlySet<string> = new Set([
  'SVFOP_CURRENT_DATE',
  'SVFOP_CURRENT_TIME',
  'SVFOP_CURRENT_TIME_N',
  'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N',
  'SVFOP_LOCALTIME',
  'SVFOP_LOCALTIME_N',
  'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]);
