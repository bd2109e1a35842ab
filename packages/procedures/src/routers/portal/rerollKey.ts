import { forbiddenBecause, rerollKey as replaceKey } from '@keyplane/core';
import { keyRerollStore } from '@keyplane/db';
import { requireScope } from '../../middleware/portalSession.ts';
import { portalProcedure } from '../../trpc.ts';
import { rerollKeyInput, rerollKeyOutput } from '../keys/rerollKey.ts';
import { loadCustomerKey } from './customerKeys.ts';

/** keys.rerollKey for the customer's own key: a new key with its settings, the old one expiring after `expiration` ms. */
export const rerollKey = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "Rolls one of the portal customer's keys: a new key, the old one working `expiration` ms more.",
    errors: [404, 412],
  })
  .input(rerollKeyInput)
  .output(rerollKeyOutput)
  .mutation(async ({ ctx, input }) => {
    requireScope(ctx.portal, 'keys:read');
    requireScope(ctx.portal, 'keys:reroll');
    const key = await loadCustomerKey(ctx, input.keyId);
    return ctx.em.transactional((tx) =>
      replaceKey(keyRerollStore(tx, ctx.changeLog), {
        workspaceId: key.workspaceId,
        keyId: key.id,
        expirationMs: input.expiration,
        now: ctx.services.now(),
        vaultMasterKey: ctx.vaultMasterKey,
        authorizeEncryption: () => {
          throw forbiddenBecause('A recoverable key cannot be rolled in the portal; its provider can roll it.');
        },
      }),
    );
  });
