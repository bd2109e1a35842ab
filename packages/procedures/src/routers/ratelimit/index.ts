import { router } from '../../trpc.ts';
import { createNamespace } from './createNamespace.ts';
import { deleteNamespace } from './deleteNamespace.ts';
import { deleteOverride } from './deleteOverride.ts';
import { getOverride } from './getOverride.ts';
import { limit } from './limit.ts';
import { listNamespaces } from './listNamespaces.ts';
import { listOverrides } from './listOverrides.ts';
import { multiLimit } from './multiLimit.ts';
import { setOverride } from './setOverride.ts';

export const ratelimitRouter = router({
  limit,
  multiLimit,
  setOverride,
  getOverride,
  listOverrides,
  deleteOverride,
  createNamespace,
  listNamespaces,
  deleteNamespace,
});
