import type { RatelimitOverrideRule } from '@keyplane/core';
import { z } from 'zod';

/** `RatelimitOverride` (docs/contract.md#overrides). */
export const overrideOutput = z
  .object({
    overrideId: z.string(),
    identifier: z.string(),
    limit: z.number(),
    duration: z.number(),
  })
  .meta({ id: 'RatelimitOverride' });

export const overrideData = (override: RatelimitOverrideRule): z.infer<typeof overrideOutput> => ({
  overrideId: override.id,
  identifier: override.identifier,
  limit: override.limit,
  duration: override.durationMs,
});
