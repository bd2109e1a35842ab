import { useState } from 'react';
import { useDebouncedValue } from '../useDebouncedValue.ts';

/**
 * Cursor pagination: the server hands out a cursor for the next page only, so the cursors of the
 * pages already seen are kept to go back.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: cursors[cursors.length - 1],
    pageNumber: cursors.length,
    next: (cursor: string) => setCursors((seen) => [...seen, cursor]),
    previous: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
    reset: () => setCursors([undefined]),
  };
}

/**
 * Cursor pages of a list with a search box: the search reaches the server once typing pauses, and
 * a new search starts again at the first page.
 */
export function useSearchedPages() {
  const pages = useCursorPages();
  const [search, setSearchText] = useState('');
  const appliedSearch = useDebouncedValue(search.trim()) || undefined;
  const setSearch = (text: string) => {
    setSearchText(text);
    pages.reset();
  };
  return { pages, search, setSearch, appliedSearch };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

interface PagerProps {
  pages: CursorPages;
  /** The cursor of the next page, when there is one. */
  nextCursor: string | undefined;
  label: string;
}

export function Pager({ pages, nextCursor, label }: PagerProps) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={pages.previous} disabled={pages.pageNumber === 1}>
        Previous page
      </button>
      <span>Page {pages.pageNumber}</span>
      <button type="button" onClick={() => nextCursor && pages.next(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}

interface NumberedPagerProps {
  /** 0 for the first page. */
  pageIndex: number;
  pageCount: number;
  onPageIndexChange: (pageIndex: number) => void;
  /** What is paged, as in "Keys pages". */
  label: string;
}

/** Numbered pages of a list whose total is known: "Page 2 of 6", with the first and last a click away. */
export function NumberedPager({ pageIndex, pageCount, onPageIndexChange, label }: NumberedPagerProps) {
  const last = Math.max(pageCount - 1, 0);
  if (last === 0 && pageIndex === 0) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" onClick={() => onPageIndexChange(0)} disabled={pageIndex === 0}>
        First<span className="visually-hidden"> page</span>
      </button>
      <button type="button" onClick={() => onPageIndexChange(pageIndex - 1)} disabled={pageIndex === 0}>
        Previous page
      </button>
      <span>
        Page {pageIndex + 1} of {last + 1}
      </span>
      <button type="button" onClick={() => onPageIndexChange(pageIndex + 1)} disabled={pageIndex >= last}>
        Next page
      </button>
      <button type="button" onClick={() => onPageIndexChange(last)} disabled={pageIndex >= last}>
        Last<span className="visually-hidden"> page</span>
      </button>
    </nav>
  );
}
