import { router } from '../../trpc.ts';
import { deleteWorkspace } from './deleteWorkspace.ts';
import { getWorkspace } from './getWorkspace.ts';

export const workspaceRouter = router({ deleteWorkspace, getWorkspace });
