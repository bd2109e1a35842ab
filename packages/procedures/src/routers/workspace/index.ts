import { router } from '../../trpc.ts';
import { deleteWorkspace } from './deleteWorkspace.ts';
import { getWorkspace } from './getWorkspace.ts';
import { setRootKeySignIn } from './setRootKeySignIn.ts';

export const workspaceRouter = router({ deleteWorkspace, getWorkspace, setRootKeySignIn });
