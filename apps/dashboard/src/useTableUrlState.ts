import type { SortingState } from '@tanstack/react-table';
import type { CursorPages } from './components/Pager.tsx';
import { navigateSearch, useSearch } from './router.tsx';
import { useDebouncedValue } from './useDebouncedValue.ts';

/** A table's sort: a column id and its direction. */
export interface TableSort {
  id: string;
  desc: boolean;
}

/** `-name` is name descending, `name` ascending. */
function parseSort(text: string | null, fallback: TableSort): TableSort {
  if (!text) return fallback;
  return text.startsWith('-') ? { id: text.slice(1), desc: true } : { id: text, desc: false };
}

/**
 * A list screen's search, sort, page and filters, kept in the URL's query string (`?q=…&sort=-createdAt&page=2`),
 * so Back returns to the same place and a reload keeps it (`after` holds the cursors of a list paged
 * by cursor). Typing in the search replaces the
 * current history entry; sorting, paging and filtering add one. A new search, sort or filter starts
 * again at the first page.
 */
export function useTableUrlState(defaultSort: TableSort) {
  const params = new URLSearchParams(useSearch());
  const sort = parseSort(params.get('sort'), defaultSort);
  const page = Number.parseInt(params.get('page') ?? '1', 10);
  const search = params.get('q') ?? '';
  const appliedSearch = useDebouncedValue(search.trim());
  // Cursors of the pages walked so far (cursor-paged lists); base64url, so '.' cannot occur in one.
  const cursorTrail = (params.get('after') ?? '').split('.').filter(Boolean);

  /** Sets (or, for undefined and '', removes) parameters, and goes back to the first page. */
  const update = (changes: Record<string, string | undefined>, options: { replace?: boolean } = {}) => {
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries({ page: undefined, after: undefined, ...changes })) {
      if (value === undefined || value === '') next.delete(name);
      else next.set(name, value);
    }
    navigateSearch(next, options);
  };

  return {
    /** What the search box shows. */
    search,
    /** The search once typing pauses: what the server is asked for. */
    appliedSearch: appliedSearch === '' ? undefined : appliedSearch,
    setSearch: (text: string) => update({ q: text }, { replace: true }),
    sorting: [sort] satisfies SortingState,
    setSorting: (sorting: SortingState) => {
      const [first] = sorting;
      const isDefault = !first || (first.id === defaultSort.id && first.desc === defaultSort.desc);
      update({ sort: isDefault ? undefined : `${first.desc ? '-' : ''}${first.id}` });
    },
    /** 0 for the first page. */
    pageIndex: Number.isInteger(page) && page > 1 ? page - 1 : 0,
    setPageIndex: (pageIndex: number) => update({ page: pageIndex > 0 ? String(pageIndex + 1) : undefined }),
    /** For lists paged by cursor (the audit log), as the Pager walks them. */
    cursorPages: {
      cursor: cursorTrail.at(-1),
      pageNumber: cursorTrail.length + 1,
      next: (cursor: string) => update({ after: [...cursorTrail, cursor].join('.') }),
      previous: () => update({ after: cursorTrail.slice(0, -1).join('.') }),
      reset: () => update({}),
    } satisfies CursorPages,
    filter: (name: string) => params.get(name) ?? undefined,
    /** `replace` for a filter typed letter by letter, as the search is. */
    setFilter: (name: string, value: string | undefined, options: { replace?: boolean } = {}) =>
      update({ [name]: value }, options),
  };
}

export type TableUrlState = ReturnType<typeof useTableUrlState>;
