import { expect, it } from 'vitest';
import { type Api, ERRORS_BASE_URL, type ErrorEnvelope, type Reply } from './harness.ts';
import type { InternalReply } from './internal.ts';
import type { ProcedurePath } from './procedures.ts';

// The error answers every procedure's tests check, asserted one way.

/** What an error assertion reads of a reply. */
type ErrorReply = Pick<Reply<unknown>, 'status'> & { body: { error: ErrorEnvelope } };

/** A 400 of the invalid-input type that names `location` among its field errors. */
export function expectInvalidInput(reply: ErrorReply, location: string): void {
  expect(reply.status).toBe(400);
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
  expect(reply.body.error.errors?.map((error) => error.location)).toContain(location);
}

/** An error answer of this status and type (the part after the errors base URL). */
export function expectProblem(reply: ErrorReply, status: number, type: string): void {
  expect(reply.status).toBe(status);
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/${type}`);
}

/**
 * A 404 for a role or permission that does not exist: the one the request is about, or `named`,
 * one of several the request listed (`Role 'ghost' was not found.`).
 */
export function expectRbacNotFound(reply: ErrorReply, kind: 'role' | 'permission', named?: string): void {
  expectProblem(reply, 404, `service/data/${kind}_not_found`);
  const noun = kind === 'role' ? 'Role' : 'Permission';
  expect(reply.body.error.detail).toBe(
    named === undefined ? `The requested ${kind} does not exist.` : `${noun} '${named}' was not found.`,
  );
}

/** A 412 for one of the limits of docs/contract.md#limits, its detail saying what is bounded (`A workspace may hold at most 5 roles`). */
export function expectLimitExceeded(reply: ErrorReply, bound: string): void {
  expectProblem(reply, 412, 'service/application/precondition_failed');
  expect(reply.body.error.detail).toContain(`${bound}, and this request would exceed that.`);
}

/** How a 403 names the missing permissions, in this order: `Missing permissions: 'a', 'b'.` */
export function missingPermissionsText(...missing: string[]): string {
  const names = missing.map((permission) => `'${permission}'`).join(', ');
  return `Missing permission${missing.length > 1 ? 's' : ''}: ${names}.`;
}

/** A 403 whose detail names exactly these missing permissions, in this order. */
export function expectMissingPermissions(reply: ErrorReply, ...missing: string[]): void {
  expect(reply.status).toBe(403);
  expect(reply.body.error.detail).toBe(missingPermissionsText(...missing));
}

/** The same 403 over `/trpc`, where the answer's message names them. */
export function expectInternalMissingPermissions(reply: InternalReply<unknown>, ...missing: string[]): void {
  expect(reply.status).toBe(403);
  expect(reply.error?.message).toBe(missingPermissionsText(...missing));
}

/** A file's 400 check: posts `body` as it is to `procedure` and expects it rejected at `location`. */
export function invalidInputCheck(api: Api, procedure: ProcedurePath, rootKey: () => string) {
  return async (body: unknown, location: string) =>
    expectInvalidInput(await api.post(procedure, body, rootKey()), location);
}

/** A file's 400 cases: each body posted as it is to `procedure`, rejected at its location. */
export function itRejectsEach(
  api: Api,
  procedure: ProcedurePath,
  rootKey: () => string,
  cases: [body: unknown, location: string][],
): void {
  it.each(cases)('rejects %j', async (body, location) => {
    expectInvalidInput(await api.post(procedure, body, rootKey()), location);
  });
}

/** 400 at `body.<field>` for each value (undefined: the field left out), the only field of its body; `check` from invalidInputCheck. */
export function itRejectsField(
  check: (body: unknown, location: string) => Promise<void>,
  field: string,
  cases: [label: string, value: unknown][],
): void {
  it.each(cases)(`rejects a ${field} %s`, async (_, value) => {
    await check(value === undefined ? {} : { [field]: value }, `body.${field}`);
  });
}
