import { type QueryKey, type UseQueryOptions, useQuery, useQueryClient } from '@tanstack/react-query';

/** The most rows a list screen loads to sort and count them itself; past it, search narrows the list. */
export const WHOLE_LIST_MAX_ROWS = 1000;

/** The largest page a list procedure answers. */
const PAGE_LIMIT = 100;

interface CursorPage {
  data: unknown[];
  pagination: { cursor?: string };
}

interface CursorListProcedure<TInput, TPage> {
  queryOptions: (input: TInput) => UseQueryOptions<TPage, Error, TPage, QueryKey>;
  queryKey: (input?: TInput) => QueryKey;
}

/**
 * Every row of a cursor-paged list (up to `maxRows`, {@link WHOLE_LIST_MAX_ROWS} unless given), page after page, so its
 * table sorts, counts and pages them all rather than one page of them. `complete` is false when
 * rows were left out; the list's search (sent with `input`) then narrows it on the server.
 */
export function useWholeList<TInput extends { cursor?: string; limit?: number }, TPage extends CursorPage>(
  procedure: CursorListProcedure<TInput, TPage>,
  input: TInput,
  enabled = true,
  maxRows = WHOLE_LIST_MAX_ROWS,
) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: [...procedure.queryKey(input), 'whole list'],
    queryFn: async () => {
      const rows: TPage['data'][number][] = [];
      let cursor: string | undefined;
      do {
        // Each page is asked again: a refetch of the list must not be answered by its cached pages.
        const page = await queryClient.fetchQuery({
          ...procedure.queryOptions({ ...input, limit: PAGE_LIMIT, cursor }),
          staleTime: 0,
        });
        rows.push(...page.data);
        cursor = page.pagination.cursor;
      } while (cursor !== undefined && rows.length < maxRows);
      return { rows, complete: cursor === undefined };
    },
    enabled,
  });
}
