import type { CompileOptions, PublicColumn, PublicTable } from './index.ts';

// Stand-ins for the tests of this package, shaped like the public tables packages/db declares.

const text = (name: string, characters: number): PublicColumn => ({ name, type: 'text', bytes: 4 * characters });
const bigint = (name: string): PublicColumn => ({ name, type: 'bigint' });

export const TEST_TABLES: Record<string, PublicTable> = {
  key_verifications_v1: {
    columns: [
      bigint('time'),
      text('request_id', 64),
      text('workspace_id', 64),
      text('api_id', 64),
      text('key_id', 64),
      text('identity_id', 64),
      text('external_id', 255),
      text('outcome', 32),
      { name: 'tags', type: 'text', bytes: 20 * (4 * 512 + 8) + 16 },
      bigint('spent_credits'),
      { name: 'latency', type: 'double' },
    ],
  },
  key_verifications_per_day_v1: {
    columns: [
      bigint('time'),
      text('workspace_id', 64),
      text('api_id', 64),
      text('key_id', 64),
      text('outcome', 32),
      bigint('count'),
    ],
  },
};

export const TEST_SCHEMA = 'analytics_views';

export function testOptions(overrides: Partial<CompileOptions> = {}): CompileOptions {
  return {
    tables: TEST_TABLES,
    schema: TEST_SCHEMA,
    maxRows: 100,
    values: { maxValueBytes: 1024 * 1024, maxNumberDigits: 1000, maxRowWork: 64 * 1024 * 1024 },
    ...overrides,
  };
}
