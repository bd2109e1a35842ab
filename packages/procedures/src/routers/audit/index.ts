import { router } from '../../trpc.ts';
import { listEvents } from './listEvents.ts';

export const auditRouter = router({ listEvents });
