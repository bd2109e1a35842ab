import { loadEnv } from '@keyplane/config';
import { DEFAULT_WORKSPACE_LIMITS } from '@keyplane/core';
import { describe, expect, it } from 'vitest';
import { workspaceLimitsOf } from './services.ts';

describe('workspaceLimitsOf', () => {
  // Tests start their services without configuration, with core's defaults: the server's must be the same.
  it("gives core's defaults for a configuration that sets none", () => {
    expect(workspaceLimitsOf(loadEnv({}))).toEqual(DEFAULT_WORKSPACE_LIMITS);
  });

  it('takes each LIMIT_ variable', () => {
    const env = loadEnv({
      LIMIT_RATELIMIT_NAMESPACES: '1',
      LIMIT_RATELIMIT_OVERRIDES: '2',
      LIMIT_RATELIMIT_WILDCARD_OVERRIDES: '3',
      LIMIT_ROLES: '4',
      LIMIT_PERMISSIONS: '5',
    });
    expect(workspaceLimitsOf(env)).toEqual({
      ratelimitNamespaces: 1,
      ratelimitOverrides: 2,
      ratelimitWildcardOverrides: 3,
      roles: 4,
      permissions: 5,
    });
  });
});
