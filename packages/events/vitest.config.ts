import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'events',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['../../packages/db/src/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
