import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: '@keyplane/portal',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['../../packages/db/src/testing/globalSetup.ts', './test/buildPortal.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
