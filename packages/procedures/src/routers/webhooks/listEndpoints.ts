import { forbidden, formatPermission } from '@keyplane/core';
import { listWebhookEndpoints } from '@keyplane/db';
import { z } from 'zod';
import { grantedResourceIds, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointData, endpointOutput } from './endpoints.ts';

export const listEndpointsInput = z.strictObject({}).optional();

/** A workspace has few endpoints: all of them, in one answer, without their secrets. */
export const listEndpointsOutput = z.array(endpointOutput);

/**
 * The workspace's endpoints in creation order, those the root key may read: all with
 * `webhook.*.read_endpoint`, else the ones its `webhook.<id>.read_endpoint` name.
 */
export const listEndpoints = rootKeyProcedure
  .meta({ public: true, description: "Lists the workspace's webhook endpoints, without their secrets." })
  .input(listEndpointsInput)
  .output(listEndpointsOutput)
  .query(async ({ ctx }) => {
    const ids = grantedResourceIds(ctx.rootKey, 'webhook', 'read_endpoint');
    if (ids?.length === 0) throw forbidden([formatPermission(webhookPermission('*', 'read_endpoint'))]);
    const endpoints = await listWebhookEndpoints(ctx.em, ctx.rootKey.workspaceId);
    return endpoints.filter((endpoint) => ids?.includes(endpoint.id) ?? true).map(endpointData);
  });
