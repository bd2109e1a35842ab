import { itRejectsEach } from './assertions.ts';
import type { Api } from './harness.ts';
import type { ListProcedurePath } from './procedures.ts';

// What the tests of the list procedures (members.listMembers, webhooks.listDeliveries, …) share.

/**
 * A list's 400s: the paging every list takes (a limit outside 1 to 100, an empty cursor), each
 * beside `base` (what the list needs besides), then `more`, the list's own cases.
 */
export function itRejectsPaging(
  api: Api,
  procedure: ListProcedurePath,
  rootKey: () => string,
  spec: { base?: Record<string, unknown>; more?: [body: unknown, location: string][] },
): void {
  const base = spec.base ?? {};
  itRejectsEach(api, procedure, rootKey, [
    [{ ...base, limit: 0 }, 'body.limit'],
    [{ ...base, limit: 101 }, 'body.limit'],
    [{ ...base, cursor: '' }, 'body.cursor'],
    ...(spec.more ?? []),
  ]);
}
