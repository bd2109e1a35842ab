import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@keyplane/dashboard',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['../../packages/db/src/testing/globalSetup.ts', './test/buildDashboard.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
