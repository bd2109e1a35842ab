import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'embedded',
    include: ['src/**/*.test.ts'],
  },
});
