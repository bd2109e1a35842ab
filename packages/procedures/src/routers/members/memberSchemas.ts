import { TEAM_ROLES } from '@keyplane/core';
import { z } from 'zod';
import { resourceIdSchema } from '../../schemas.ts';

/** A person's role in a workspace (docs/contract.md#members). */
export const teamRoleSchema = z.enum(TEAM_ROLES).meta({
  id: 'TeamRole',
  description: 'owner: everything; admin: everything but ownership; member: no people, no root keys; viewer: reads.',
});

/** An email address as people type them, up to the 320 characters an address can have. */
export const emailSchema = z.email().max(320);

export const userIdSchema = resourceIdSchema;
