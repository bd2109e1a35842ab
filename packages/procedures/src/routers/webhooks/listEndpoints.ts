import { listWebhookEndpoints } from '@keyplane/db';
import { z } from 'zod';
import { grantedPage, listOutput, paginationInput } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointData, endpointOutput } from './endpoints.ts';

export const listEndpointsInput = z.strictObject({ ...paginationInput });

/** A page of endpoints, without their secrets. */
export const listEndpointsOutput = listOutput(endpointOutput);

/**
 * A page of the workspace's endpoints in creation order, those the root key may read: all with
 * `webhook.*.read_endpoint`, else the ones its `webhook.<id>.read_endpoint` name (403 with none).
 */
export const listEndpoints = rootKeyProcedure
  .meta({
    public: true,
    list: true,
    description: "Lists the workspace's webhook endpoints, a page at a time, without their secrets.",
  })
  .input(listEndpointsInput)
  .output(listEndpointsOutput)
  .query(({ ctx, input }) =>
    grantedPage(
      ctx.rootKey,
      input,
      { resourceType: 'webhook', action: 'read_endpoint' },
      (query) => listWebhookEndpoints(ctx.em, ctx.rootKey.workspaceId, query),
      endpointData,
    ),
  );
