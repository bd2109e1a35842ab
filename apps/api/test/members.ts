import type { TeamRole } from '@keyplane/core';
import { findMembership, typed } from '@keyplane/db';
import { expect } from 'vitest';
import type { Api } from './harness.ts';

// What the members.* test files share.

export const MANAGE_MEMBERS = 'workspace.*.manage_members';

/** The person's role in the workspace as stored; undefined: no member. */
export async function storedRole(api: Pick<Api, 'em'>, workspaceId: string, userId: string) {
  return (await findMembership(api.em(), workspaceId, userId))?.role;
}

/** The token a link carries after its `#`. */
export function tokenOf(url: string): string {
  const token = url.split('#')[1];
  if (token === undefined) throw new Error(`no token in ${url}`);
  return token;
}

/** `<origin><path>#<43 base64url characters>`, the shape of every link members.* makes. */
export function expectLink(url: string, origin: string, path: string): void {
  expect(url).toMatch(new RegExp(`^${origin.replaceAll('.', '\\.')}${path}#[A-Za-z0-9_-]{43}$`));
}

/** The audit entries of the workspace for this event, as stored, newest first. */
export async function auditEntries(api: Pick<Api, 'em'>, workspaceId: string, event: string) {
  return typed(api.em())
    .selectFrom('audit_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('event', '=', event)
    .orderBy('id', 'desc')
    .execute();
}

/** No part of the entry (resources, details, anything) holds this secret. */
export function expectNotRecorded(entries: readonly unknown[], secret: string): void {
  expect(entries.length).toBeGreaterThan(0);
  expect(JSON.stringify(entries)).not.toContain(secret);
}

export type { TeamRole };
