import { router } from '../../trpc.ts';
import { listEventNames } from './listEventNames.ts';
import { listEvents } from './listEvents.ts';

export const auditRouter = router({ listEventNames, listEvents });
