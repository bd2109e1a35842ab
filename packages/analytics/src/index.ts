export { ALLOWED_FUNCTIONS, ALLOWED_OPERATORS, ALLOWED_TYPES } from './allowlist.ts';
export { type AnalyticsCompiler, createAnalyticsCompiler } from './compiler.ts';
export {
  ANALYTICS_LIMITS,
  ANALYTICS_ROLE,
  ANALYTICS_SCHEMA,
  type AnalyticsDatabase,
  type AnalyticsDataset,
  type AnalyticsLimits,
  type AnalyticsQuery,
  type AnalyticsSetup,
  createAnalyticsDatabase,
  DEFAULT_ANALYTICS_CONNECTIONS,
} from './database.ts';
export { type AnalyticsErrorCode, AnalyticsQueryError, positionAtByte, type QueryPosition } from './errors.ts';
export { type CompiledQuery, type CompileOptions, compileAnalyticsQuery, type PublicTable } from './guard.ts';
export type { PublicColumn, ValueLimits } from './valueBounds.ts';
