import { globSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type UserWorkspaceConfig } from 'vitest/config';
import server from './apps/api/vitest.config.ts';

/**
 * Files at once. Vitest's default is one fewer than the cores (one, on the two-core machines the
 * suite runs on), but most files wait on server processes, PostgreSQL and browsers rather than
 * compute: three at once keep both cores busy. Every project is given inline, so that it inherits
 * this: a project given by its path does not, and would run its files one at a time after the rest.
 */
const WORKERS = 3;

/**
 * Files share their worker's module graph (`isolate: false`): each file would otherwise import
 * the whole server again, which cost more CPU than most files' tests. Every file cleans up after
 * itself (servers closed, environment stubs undone), which this relies on.
 */
const ISOLATE = false;

/**
 * Test files that compare latencies measured on this machine: they run after the others, in a
 * group of their own (`groupOrder`), one at a time, so that the rest of the suite does not weigh on
 * one phase of a measurement and not on the other. The hostile-tenant suite bounds another
 * workspace's latency while the largest requests run (docs/contract.md#limits).
 */
const MEASURING_LATENCY = [
  'test/analyticsIsolation.test.ts',
  'test/hostileTenant/analyticsLatency.test.ts',
  'test/hostileTenant/keyAccess.test.ts',
  'test/hostileTenant/keyImports.test.ts',
  'test/hostileTenant/ratelimitOverrides.test.ts',
  'test/hostileTenant/trpcBatches.test.ts',
];

/** Every workspace with tests but the server, each from its own vitest.config.ts, given inline. */
const workspaceProjects = await Promise.all(
  globSync(
    [
      'packages/*/vitest.config.ts',
      'apps/cli/vitest.config.ts',
      'apps/dashboard/vitest.config.ts',
      'apps/portal/vitest.config.ts',
      'examples/*/vitest.config.ts',
    ],
    { cwd: fileURLToPath(new URL('.', import.meta.url)) },
  ).map(async (config) => {
    const { default: project } = (await import(new URL(config, import.meta.url).href)) as {
      default: UserWorkspaceConfig;
    };
    return { ...project, test: { ...project.test, isolate: ISOLATE, root: `./${dirname(config)}` } };
  }),
);

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: [
      ...workspaceProjects,
      {
        test: {
          ...server.test,
          isolate: ISOLATE,
          root: './apps/api',
          exclude: [...configDefaults.exclude, ...MEASURING_LATENCY],
        },
      },
      {
        test: {
          ...server.test,
          root: './apps/api',
          name: 'server-latency',
          isolate: ISOLATE,
          include: MEASURING_LATENCY,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
