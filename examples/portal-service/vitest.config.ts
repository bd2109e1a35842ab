import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'example-portal-service',
    include: ['test/**/*.test.ts'],
    globalSetup: ['../../packages/db/src/testing/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
