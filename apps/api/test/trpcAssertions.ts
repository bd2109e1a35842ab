import { expect } from 'vitest';
import type { InternalReply } from './internal.ts';

// The `/trpc` refusals the dashboard procedures' tests check, asserted one way.

/** A 400 for an input the procedure does not take, its message naming `field` as `"field"`. */
export function expectInputNaming(reply: InternalReply<unknown>, field: string): void {
  expect(reply.status).toBe(400);
  expect(reply.error?.message).toContain(`"${field}"`);
}

/** A 401 for a root key at a procedure of a person's own account: a root key has no account. */
export function expectNoAccount(reply: InternalReply<unknown>): void {
  expect(reply.status).toBe(401);
  expect(reply.error?.message).toMatch(/a root key has no account/);
}
