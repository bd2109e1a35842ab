import { badRequest, forbidden, formatPermission, type PermissionTuple } from '@keyplane/core';
import type { ChosenPage, PageQuery } from '@keyplane/db';
import { z } from 'zod';
import { grantedResourceIds, type RootKeyPrincipal } from './middleware/auth.ts';

export const MAX_PAGE_SIZE = 100;

/**
 * The most permissions the items of one page carry between them, where items carry lists of them
 * (roles, root keys): such a page ends early rather than carry up to 100 × 1000 of them
 * (docs/contract.md#limits). A single item is always served whole.
 */
export const MAX_PAGE_PERMISSIONS = 1000;

/**
 * The most bytes the items of one page take between them where an item can be large (a key or an
 * identity with up to a megabyte of meta, and a key's permissions): such a page ends early
 * (docs/contract.md#limits). A single item is always served whole.
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** `limit` and `cursor` of every list procedure. */
export const paginationInput = {
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(MAX_PAGE_SIZE),
  cursor: z.string().min(1).max(1024).optional(),
};

/** What a list answers beside its `data` (docs/contract.md#lists-and-cursors). */
const paginationOutput = z.object({ cursor: z.string().optional(), hasMore: z.boolean() }).meta({ id: 'Pagination' });

/**
 * The output of a list procedure: the adapter answers `{ meta, data, pagination }`, as the
 * public contract's list procedures do.
 */
export function listOutput<TItem extends z.ZodType>(item: TItem) {
  return z.object({
    data: z.array(item),
    pagination: paginationOutput,
  });
}

/**
 * Cursors are opaque and bound to the workspace that received them: one from another workspace is
 * a 400, never a way in. Inside, the id of the first row of the next page (ids sort by creation,
 * so rows added during a walk come after it and every row is seen exactly once).
 */
export function encodeCursor(workspaceId: string, id: string): string {
  return Buffer.from(JSON.stringify([workspaceId, id])).toString('base64url');
}

export function decodeCursor(workspaceId: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (!Array.isArray(decoded) || decoded[0] !== workspaceId || typeof decoded[1] !== 'string') {
    throw badRequest('The cursor is not valid: pass back the cursor of a previous page of this list.', [
      { location: 'body.cursor', message: 'unknown cursor' },
    ]);
  }
  return decoded[1];
}

/**
 * A page from `limit + 1` rows fetched in id order from the decoded cursor on (`id >= cursor`):
 * the extra row only tells whether there is more, and becomes the next cursor.
 */
export function toPage<TRow extends { id: string }, TItem>(
  workspaceId: string,
  rows: readonly TRow[],
  limit: number,
  toItem: (row: TRow) => TItem,
) {
  const next = rows[limit];
  return {
    data: rows.slice(0, limit).map(toItem),
    pagination: next ? { cursor: encodeCursor(workspaceId, next.id), hasMore: true } : { hasMore: false },
  };
}

/** A page of rows chosen by data access (a budgeted page), `nextId` starting the next one. */
export function chosenPage<TRow, TItem>(workspaceId: string, page: ChosenPage<TRow>, toItem: (row: TRow) => TItem) {
  return {
    data: page.rows.map(toItem),
    pagination:
      page.nextId === undefined
        ? { hasMore: false }
        : { cursor: encodeCursor(workspaceId, page.nextId), hasMore: true },
  };
}

/**
 * One page of a searchable list limited to what the root key may read: every row with a `*` grant
 * for `read`, else only the rows its grants name (so a key scoped to one API lists that API). A key
 * with no such grant at all gets a 403 naming the wildcard.
 */
export async function grantedPage<TRow extends { id: string }, TItem>(
  principal: RootKeyPrincipal,
  input: { limit: number; cursor?: string; search?: string },
  read: Omit<PermissionTuple, 'resourceId'>,
  fetchRows: (query: PageQuery) => Promise<TRow[] | ChosenPage<TRow>>,
  toItem: (row: TRow) => TItem,
) {
  const { workspaceId } = principal;
  const fromId = decodeCursor(workspaceId, input.cursor);
  const ids = grantedResourceIds(principal, read.resourceType, read.action);
  if (ids?.length === 0) throw forbidden([formatPermission({ ...read, resourceId: '*' })]);
  const found = await fetchRows({ fromId, search: input.search, count: input.limit + 1, ids });
  // Data access either returns the rows fetched (limit + 1) or the page it chose within a budget.
  return Array.isArray(found)
    ? toPage(workspaceId, found, input.limit, toItem)
    : chosenPage(workspaceId, found, toItem);
}
