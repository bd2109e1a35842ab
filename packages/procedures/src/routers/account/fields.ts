import { TEAM_ROLES } from '@keyplane/core';
import { z } from 'zod';
import { textSchema } from '../../schemas.ts';

// The fields the account.* procedures share.

export const emailSchema = z.email().max(320);
/** A person's name as others see it on the members screen. */
export const personNameSchema = textSchema.trim().min(1).max(255);
/**
 * A password as typed. Bounded so that a hash costs what the policy allows (core's
 * MAX_PASSWORD_LENGTH in characters is at most this many UTF-16 units); the policy itself is
 * core's `requireAcceptablePassword`, so its 400s name the rule.
 */
export const passwordSchema = z.string().min(1).max(1024);
/** A link's token, as the dashboard reads it from the address's fragment. */
export const linkTokenSchema = z.string().trim().min(1).max(256);
export const roleSchema = z.enum(TEAM_ROLES);

/** What every way in answers: who signed in, and to which workspace (the cookie carries the session). */
export const signedInOutput = z.object({ userId: z.string(), workspaceId: z.string() });
