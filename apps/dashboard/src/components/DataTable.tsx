import type { UseQueryResult } from '@tanstack/react-query';
import {
  type ColumnDef,
  createColumnHelper,
  createPaginatedRowModel,
  createSortedRowModel,
  type PaginationState,
  type RowData,
  rowPaginationFeature,
  rowSortingFeature,
  type SortingState,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_text,
  tableFeatures,
  type Updater,
  useTable,
} from '@tanstack/react-table';
import type { CellData, TableFeatures } from '@tanstack/table-core';
import { ChevronDown, ChevronsUpDown, ChevronUp } from 'lucide-react';
import { Children, cloneElement, Fragment, isValidElement, type ReactElement, type ReactNode, useId } from 'react';
import { formatCount } from '../format.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { NumberedPager } from './Pager.tsx';
import { LoadingStatus, TableSkeletonRows } from './Skeleton.tsx';

const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, text: sortFn_text, basic: sortFn_basic },
  rowPaginationFeature,
  paginatedRowModel: createPaginatedRowModel(),
});

/** How a cell shows on a phone, where a row is compact (styles.css). */
export type PhoneCell = 'hidden' | 'badge' | 'bare' | 'menu';

declare module '@tanstack/table-core' {
  interface ColumnMeta<
    in out TFeatures extends TableFeatures,
    in out TData extends RowData,
    TValue extends CellData = CellData,
  > {
    /** On a phone: left out (`hidden`, seen on the page the row opens), beside the heading (`badge`, `menu`), or unlabelled (`bare`). */
    phone?: PhoneCell;
    /** The column's width on a wide screen (a fixed-layout table), e.g. `7rem`. */
    width?: string;
    /** This column's cells head their rows (the first column's do otherwise). */
    rowHeader?: boolean;
  }
}

/**
 * A list table's columns (TanStack Table column definitions). Each `header` is a plain string: it
 * names the column, its sort button and, on a phone, the value in each card. The first column is
 * the row's heading cell.
 */
// biome-ignore lint/suspicious/noExplicitAny: the columns of one table hold values of different types, as TanStack's own column arrays do.
export type TableColumns<TRow extends RowData> = ColumnDef<typeof features, TRow, any>[];

/** The column helper of a list table, typed for its rows. */
export const tableColumns = <TRow extends RowData>() => createColumnHelper<typeof features, TRow>();

/** What a count of the rows is called: "1 key", "71 keys". */
export interface Noun {
  one: string;
  /** Only for nouns not made with -s. */
  other?: string;
}

interface TableBaseProps<TRow> {
  /** Read by screen readers only: sighted users have the page heading. */
  caption: ReactNode;
  /** The query the rows come from: its failure (with a retry) and its loading are shown here. */
  query: Pick<UseQueryResult, 'error' | 'isPending' | 'refetch'>;
  /** What is loading, as in "Loading root keys…". */
  loadingLabel: string;
  /** The single row's text when there are no rows. */
  emptyMessage: ReactNode;
  rowKey: (row: TRow) => string;
}

interface SortedTableProps<TRow extends RowData> extends TableBaseProps<TRow> {
  columns: TableColumns<TRow>;
  /** Every row (client side), or the page the server sorted (server side). */
  rows: readonly TRow[] | undefined;
  noun: Noun;
  sorting: SortingState;
  onSortingChange: (sorting: SortingState) => void;
  /**
   * Numbered pages (0-based `pageIndex`). Without it the table shows every row it is given, and the
   * screen pages some other way (the audit log's cursor).
   */
  paging?: { pageIndex: number; pageSize: number; onPageIndexChange: (pageIndex: number) => void };
  /**
   * The server sorted (and paged) the rows and counted them all: `total` is that count. Without
   * it the table sorts and pages the rows it is given, and counts them.
   */
  server?: { total: number | undefined };
  /** The sort select above the table: on a phone only (the headers sort elsewhere), or always. */
  sortSelect?: 'phone' | 'always';
  /** Labels for sorts the select offers beyond the columns', by column id (a column not shown). */
  extraSorts?: Record<string, string>;
  /** Columns take the widths their `meta.width` gives (fixed layout): nothing widens the table past its frame. */
  fixedLayout?: boolean;
  /** Marks a row (e.g. `data-selected`). */
  rowAttributes?: (row: TRow) => Record<string, string | undefined>;
  /** Beside the total, above the table: bulk actions, filters. */
  toolbar?: ReactNode;
}

const EMPTY: never[] = [];

function resolve<T>(updater: Updater<T>, current: T): T {
  return typeof updater === 'function' ? (updater as (old: T) => T)(current) : updater;
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/** A short table that neither sorts nor pages: its column names, and each row's cells in their order. */
interface StaticTableProps<TRow> extends TableBaseProps<TRow> {
  columns: readonly string[];
  rows: readonly TRow[] | undefined;
  renderCells: (row: TRow) => ReactNode;
}

export type DataTableProps<TRow extends RowData> = SortedTableProps<TRow> | StaticTableProps<TRow>;

/**
 * A list screen's table: sorted and paged on TanStack Table when given column definitions, or a
 * short static one when given column names and `renderCells`.
 */
export function DataTable<TRow extends RowData>(props: DataTableProps<TRow>) {
  return 'renderCells' in props ? <StaticTable {...props} /> : <SortedTable {...props} />;
}

/**
 * A list screen's table on TanStack Table: headers that sort (aria-sort says how), a total, numbered
 * pages, placeholder rows while it loads and one row saying when it is empty. Each cell gets its
 * column's name as `data-label`: on a phone the rows become stacked cards (styles.css) and every
 * value shows under the name of its column.
 */
function SortedTable<TRow extends RowData>({
  caption,
  columns,
  query,
  rows,
  loadingLabel,
  emptyMessage,
  rowKey,
  noun,
  sorting,
  onSortingChange,
  paging,
  server,
  sortSelect = 'phone',
  extraSorts = {},
  fixedLayout,
  rowAttributes,
  toolbar,
}: SortedTableProps<TRow>) {
  const sortSelectId = useId();
  const pageSize = paging?.pageSize ?? Number.MAX_SAFE_INTEGER;
  // A page past the last (an old URL, a list that shrank) shows the last page the rows fill.
  const lastClientPage = Math.max(Math.ceil((rows?.length ?? 0) / pageSize) - 1, 0);
  const pagination: PaginationState = {
    pageIndex: server ? (paging?.pageIndex ?? 0) : Math.min(paging?.pageIndex ?? 0, lastClientPage),
    pageSize,
  };
  const table = useTable({
    features,
    columns,
    data: (rows ?? EMPTY) as TRow[],
    getRowId: rowKey,
    state: { sorting, pagination },
    onSortingChange: (updater) => onSortingChange(resolve(updater, sorting)),
    onPaginationChange: (updater) => paging?.onPageIndexChange(resolve(updater, pagination).pageIndex),
    enableSortingRemoval: false,
    enableMultiSort: false,
    autoResetPageIndex: false,
    manualSorting: server !== undefined,
    manualPagination: server !== undefined || paging === undefined,
    rowCount: server?.total,
  });
  const total = server ? server.total : rows?.length;
  const headers = table.getHeaderGroups().flatMap((group) => group.headers);
  // A header given as a function (a select-all box) draws itself and names no column.
  const labels = headers.map((header) => {
    const { header: name } = header.column.columnDef;
    return typeof name === 'function' ? '' : String(name ?? header.id);
  });
  const visibleRows = table.getRowModel().rows;
  const sortable = headers.filter((header) => header.column.getCanSort());
  const [currentSort] = sorting;
  const sortOptions = [
    ...sortable.map((header) => ({ id: header.id, label: labels[headers.indexOf(header)] ?? header.id })),
    ...Object.entries(extraSorts).map(([id, label]) => ({ id, label })),
  ];
  const headerIndex = Math.max(
    0,
    headers.findIndex((header) => header.column.columnDef.meta?.rowHeader),
  );

  return (
    <>
      {query.error ? <ErrorMessage error={query.error} onRetry={() => void query.refetch()} /> : null}
      {query.isPending ? <LoadingStatus label={loadingLabel} /> : null}
      <div className="table-toolbar">
        <p className="table-total" role="status">
          {total === undefined ? '\u00a0' : formatCount(total, noun.one, noun.other)}
        </p>
        {toolbar}
        {/* On a phone the column headers are hidden (rows are compact): the sort is chosen here. */}
        <div className={sortSelect === 'always' ? 'field sort-select' : 'field sort-select phone-only'}>
          <label htmlFor={sortSelectId}>Sort by</label>
          <select
            id={sortSelectId}
            value={currentSort ? `${currentSort.desc ? '-' : ''}${currentSort.id}` : ''}
            onChange={(event) => {
              const chosen = event.target.value;
              const desc = chosen.startsWith('-');
              onSortingChange([{ id: desc ? chosen.slice(1) : chosen, desc }]);
            }}
          >
            {sortOptions.flatMap(({ id, label }) => [
              <option key={id} value={id}>
                {label}, ascending
              </option>,
              <option key={`-${id}`} value={`-${id}`}>
                {label}, descending
              </option>,
            ])}
          </select>
        </div>
      </div>
      <div className="table-wrap cards">
        <table className={fixedLayout ? 'table-fixed' : undefined}>
          <caption className="visually-hidden">{caption}</caption>
          {fixedLayout ? (
            <colgroup>
              {headers.map((header) => (
                <col key={header.id} style={{ width: header.column.columnDef.meta?.width }} />
              ))}
            </colgroup>
          ) : null}
          <thead>
            <tr>
              {headers.map((header, index) => {
                const sorted = header.column.getIsSorted();
                const SortMark = sorted === 'asc' ? ChevronUp : sorted === 'desc' ? ChevronDown : ChevronsUpDown;
                return (
                  <th key={header.id} scope="col" aria-sort={sorted ? ARIA_SORT[sorted] : undefined}>
                    {header.column.getCanSort() ? (
                      <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                        {labels[index]}
                        <span aria-hidden="true" className="sort-mark">
                          <SortMark size={12} />
                        </span>
                      </button>
                    ) : typeof header.column.columnDef.header === 'function' ? (
                      <table.FlexRender header={header} />
                    ) : (
                      labels[index]
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {query.isPending ? <TableSkeletonRows columns={headers.length} /> : null}
            {rows?.length === 0 || (rows && visibleRows.length === 0) ? (
              <tr>
                <td colSpan={headers.length} data-phone="bare">
                  {emptyMessage}
                </td>
              </tr>
            ) : null}
            {visibleRows.map((row) => (
              <tr key={row.id} {...rowAttributes?.(row.original)}>
                {row.getAllCells().map((cell, index) => {
                  const meta = cell.column.columnDef.meta;
                  return index === headerIndex ? (
                    <th key={cell.id} scope="row">
                      <table.FlexRender cell={cell} />
                    </th>
                  ) : (
                    <td key={cell.id} data-label={labels[index] || undefined} data-phone={meta?.phone}>
                      <table.FlexRender cell={cell} />
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {paging && total !== undefined ? (
        <NumberedPager
          pageIndex={pagination.pageIndex}
          pageCount={table.getPageCount()}
          onPageIndexChange={paging.onPageIndexChange}
          label={noun.other ?? `${noun.one}s`}
        />
      ) : null}
    </>
  );
}

/** Each cell gets its column's name as `data-label`, as the sorted table's cells do. */
function labelCells(cells: ReactNode, columns: readonly string[]): ReactNode {
  const list =
    isValidElement<{ children?: ReactNode }>(cells) && cells.type === Fragment ? cells.props.children : cells;
  return Children.map(list, (cell, index) =>
    isValidElement(cell)
      ? cloneElement(cell as ReactElement<{ 'data-label'?: string }>, { 'data-label': columns[index] || undefined })
      : cell,
  );
}

function StaticTable<TRow>({
  caption,
  columns,
  query,
  rows,
  loadingLabel,
  emptyMessage,
  rowKey,
  renderCells,
}: StaticTableProps<TRow>) {
  return (
    <>
      {query.error ? <ErrorMessage error={query.error} onRetry={() => void query.refetch()} /> : null}
      {query.isPending ? <LoadingStatus label={loadingLabel} /> : null}
      <div className="table-wrap cards">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {query.isPending ? <TableSkeletonRows columns={columns.length} /> : null}
            {rows?.length === 0 ? (
              <tr>
                <td colSpan={columns.length}>{emptyMessage}</td>
              </tr>
            ) : null}
            {rows?.map((row) => (
              <tr key={rowKey(row)}>{labelCells(renderCells(row), columns)}</tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
