import { type AuditEventRecord, countAuditEvents, listAuditEvents } from '@keyplane/db';
import { z } from 'zod';
import { READ_AUDIT_LOG, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { resourceIdSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { auditVisibility } from './auditVisibility.ts';

export const listEventsInput = z
  .strictObject({
    ...paginationInput,
    order: z.enum(['newest', 'oldest']).default('newest'),
    /** Only changes made with this root key (the actor). */
    rootKeyId: resourceIdSchema.optional(),
    /** Only changes made by this person (the actor), signed in with their account. */
    userId: resourceIdSchema.optional(),
    /** Only this event (the action), such as `keys.createKey`. */
    event: textSchema.min(1).max(256).optional(),
    /** Only changes that named or produced this id (the resource), whatever its kind. */
    resourceId: resourceIdSchema.optional(),
    /** Case-insensitive "contains" on the event or any of its resource ids. */
    search: textSchema.max(256).optional(),
    /** Only changes made at or after this time (unix ms). */
    from: z.number().int().min(0).optional(),
    /** Only changes made before this time (unix ms). */
    to: z.number().int().min(0).optional(),
  })
  .optional();

/**
 * Who made a change: a person signed in with their account, a root key (or a dashboard session opened
 * with one), the CLI, or a customer in a portal (docs/portal.md) by their externalId.
 */
const auditActorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('person'), userId: z.string(), email: z.string() }),
  z.object({ type: z.literal('rootKey'), rootKeyId: z.string() }),
  z.object({ type: z.literal('cli') }),
  z.object({ type: z.literal('portalEndUser'), externalId: z.string(), portalId: z.string() }),
]);

export const listEventsOutput = listOutput(
  z.object({
    id: z.string(),
    time: z.number(),
    /** The root key of the change; null for a person's or the CLI's (`actor` says who). */
    rootKeyId: z.string().nullable(),
    actor: auditActorSchema,
    event: z.string(),
    resources: z.record(z.string(), z.string()),
    /** The API of the key the event names, which the key's page needs. */
    keyApiId: z.string().nullable(),
    /** The names of what the change touched and each setting it altered; null for events recorded before these were. */
    details: z
      .object({
        names: z.record(z.string(), z.string()).optional(),
        changes: z
          .array(z.object({ resource: z.string(), field: z.string(), before: z.unknown(), after: z.unknown() }))
          .optional(),
        /** How a person signed in, on sign-in events. */
        method: z.string().optional(),
        /** Why a sign-in was refused. */
        reason: z.string().optional(),
        /** The address a refused sign-in was made with. */
        email: z.string().optional(),
      })
      .nullable(),
    /** The caller's network address, where it was known. */
    clientAddress: z.string().nullable(),
  }),
).extend({
  /** Every event the filters keep, over all pages. */
  total: z.number().int(),
});

/**
 * Internal (the dashboard's audit view): the workspace's changes the root key may see (those about
 * what it may read: auditVisibility), newest (or oldest) first, filtered among themselves.
 */
export const listEvents = rootKeyProcedure
  .meta({ list: true })
  .input(listEventsInput)
  .output(listEventsOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [READ_AUDIT_LOG]);
    const { workspaceId } = ctx.rootKey;
    const limit = input?.limit ?? 100;
    const filters = {
      visibleTo: auditVisibility(ctx.rootKey),
      rootKeyId: input?.rootKeyId,
      userId: input?.userId,
      event: input?.event,
      resourceId: input?.resourceId,
      search: input?.search,
      from: input?.from,
      to: input?.to,
    };
    const found = await listAuditEvents(ctx.em, workspaceId, {
      ...filters,
      order: input?.order,
      fromId: decodeCursor(workspaceId, input?.cursor),
      count: limit + 1,
    });
    const total = await countAuditEvents(ctx.em, workspaceId, filters);
    return { ...toPage(workspaceId, found, limit, shapeEvent), total };
  });

function actorOf(event: AuditEventRecord): z.infer<typeof auditActorSchema> {
  if (event.actorPortalId !== null) {
    return { type: 'portalEndUser', externalId: event.actorExternalId ?? '', portalId: event.actorPortalId };
  }
  if (event.actorUserId !== null) return { type: 'person', userId: event.actorUserId, email: event.actorEmail ?? '' };
  if (event.rootKeyId !== null) return { type: 'rootKey', rootKeyId: event.rootKeyId };
  return { type: 'cli' };
}

/** An event as the log answers it: who made it as one `actor`, beside the root key it names. */
function shapeEvent(event: AuditEventRecord) {
  const { actorUserId, actorEmail, actorExternalId, actorPortalId, ...rest } = event;
  return { ...rest, actor: actorOf(event) };
}
