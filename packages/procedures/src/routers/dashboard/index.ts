import { router } from '../../trpc.ts';
import { session } from './session.ts';
import { signIn } from './signIn.ts';
import { signOut } from './signOut.ts';

export const dashboardRouter = router({ session, signIn, signOut });
