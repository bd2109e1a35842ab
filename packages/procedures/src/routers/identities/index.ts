import { router } from '../../trpc.ts';
import { createIdentity } from './createIdentity.ts';
import { deleteIdentity } from './deleteIdentity.ts';
import { getIdentity } from './getIdentity.ts';
import { listIdentities } from './listIdentities.ts';
import { updateIdentity } from './updateIdentity.ts';

export const identitiesRouter = router({
  createIdentity,
  getIdentity,
  listIdentities,
  updateIdentity,
  deleteIdentity,
});
