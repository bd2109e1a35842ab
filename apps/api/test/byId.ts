import { itRejectsEach } from './assertions.ts';
import type { Api, TestWorkspace } from './harness.ts';
import { callProcedure } from './internal.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

// What the tests of a procedure taking one id (webhooks.deleteEndpoint's endpointId,
// members.removeMember's userId, …) share: calling it with that id, and the 400s of its input.

/**
 * Calls `procedure` with just `{ [field]: id }`, with the workspace's root key unless given
 * another; `asPerson` makes the same call over `/trpc` as a person signed in to the dashboard.
 */
export function procedureById<P extends ProcedurePath>(
  api: Api,
  workspace: TestWorkspace,
  procedure: P,
  field: string,
) {
  const input = (id: string) => ({ [field]: id }) as InputOf<P>;
  const call = (id: string, rootKey = workspace.rootKey) => api.call(procedure, input(id), rootKey);
  return Object.assign(call, {
    asPerson: (session: string, id: string) => callProcedure(api, procedure, input(id), { session }),
    /**
     * The 400s: the id left out, the id `malformed`, and `beside`, a well-formed id with a field
     * the procedure does not take (rejected at that field).
     */
    itRejectsInput(malformed: unknown, beside: Record<string, unknown>): void {
      const unknown = Object.keys(beside).find((name) => name !== field);
      itRejectsEach(api, procedure, () => workspace.rootKey, [
        [{}, `body.${field}`],
        [{ [field]: malformed }, `body.${field}`],
        [beside, `body.${unknown}`],
      ]);
    },
  });
}
