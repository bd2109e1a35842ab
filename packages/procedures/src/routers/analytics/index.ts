import { router } from '../../trpc.ts';
import { getRatelimits } from './getRatelimits.ts';
import { getVerifications } from './getVerifications.ts';

export const analyticsRouter = router({
  getVerifications,
  getRatelimits,
});
