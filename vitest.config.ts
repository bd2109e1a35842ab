import { configDefaults, defineConfig } from 'vitest/config';
import server from './apps/api/vitest.config.ts';

/**
 * Test files that compare latencies measured on this machine: they run in a group of their own
 * (`groupOrder`, vitest runs it before the others), one at a time, so that the rest of the suite
 * does not weigh on one phase of a measurement and not on the other. The hostile-tenant suite
 * bounds another workspace's latency while the largest requests run (docs/contract.md#limits).
 */
const MEASURING_LATENCY = [
  'test/analyticsIsolation.test.ts',
  'test/hostileTenant/analyticsLatency.test.ts',
  'test/hostileTenant/keyAccess.test.ts',
  'test/hostileTenant/keyImports.test.ts',
  'test/hostileTenant/ratelimitOverrides.test.ts',
  'test/hostileTenant/trpcBatches.test.ts',
];

export default defineConfig({
  test: {
    /**
     * Files at once. Vitest's default is one fewer than the cores (one, on the two-core machines the
     * suite runs on), but most files wait on server processes, PostgreSQL and browsers rather than
     * compute: three at once keep both cores busy (docs/contributing.md#running-the-tests).
     */
    maxWorkers: 3,
    projects: [
      'packages/*',
      'apps/cli',
      'apps/dashboard',
      'examples/*',
      { test: { ...server.test, root: './apps/api', exclude: [...configDefaults.exclude, ...MEASURING_LATENCY] } },
      {
        test: {
          ...server.test,
          root: './apps/api',
          name: 'server-latency',
          include: MEASURING_LATENCY,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
