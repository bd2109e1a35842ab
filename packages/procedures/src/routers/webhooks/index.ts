import { router } from '../../trpc.ts';
import { createEndpoint } from './createEndpoint.ts';
import { deleteEndpoint } from './deleteEndpoint.ts';
import { listDeliveries } from './listDeliveries.ts';
import { listEndpoints } from './listEndpoints.ts';
import { redeliver } from './redeliver.ts';
import { rotateSecret } from './rotateSecret.ts';
import { sendTest } from './sendTest.ts';
import { updateEndpoint } from './updateEndpoint.ts';

export const webhooksRouter = router({
  createEndpoint,
  listEndpoints,
  updateEndpoint,
  deleteEndpoint,
  rotateSecret,
  listDeliveries,
  redeliver,
  sendTest,
});
