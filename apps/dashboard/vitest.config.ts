import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@keyplane/dashboard',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['../../packages/db/src/testing/globalSetup.ts', './test/buildDashboard.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A browser's first load of a screen on a loaded machine takes more than expect.poll's default second.
    expect: { poll: { timeout: 10_000 } },
  },
});
