import { expect } from 'vitest';
import { ERRORS_BASE_URL, type Reply } from './harness.ts';

// The error answers every procedure's tests check, asserted one way.

/** A 400 of the invalid-input type that names `location` among its field errors. */
export function expectInvalidInput(reply: Reply<unknown>, location: string): void {
  expect(reply.status).toBe(400);
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
  expect(reply.body.error.errors?.map((error) => error.location)).toContain(location);
}

/** An error answer of this status and type (the part after the errors base URL). */
export function expectProblem(reply: Reply<unknown>, status: number, type: string): void {
  expect(reply.status).toBe(status);
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/${type}`);
}

/** A 403 whose detail names exactly these missing permissions, in this order. */
export function expectMissingPermissions(reply: Reply<unknown>, ...missing: string[]): void {
  expect(reply.status).toBe(403);
  const names = missing.map((permission) => `'${permission}'`).join(', ');
  expect(reply.body.error.detail).toBe(`Missing permission${missing.length > 1 ? 's' : ''}: ${names}.`);
}
