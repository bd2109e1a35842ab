import type { UseQueryResult } from '@tanstack/react-query';
import { Children, cloneElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react';
import { ErrorMessage } from './ErrorMessage.tsx';
import { LoadingStatus, TableSkeletonRows } from './Skeleton.tsx';

interface DataTableProps<TRow> {
  /** Read by screen readers only: sighted users have the page heading. */
  caption: ReactNode;
  columns: readonly string[];
  /** The query the rows come from: its failure (with a retry) and its loading are shown here. */
  query: Pick<UseQueryResult, 'error' | 'isPending' | 'refetch'>;
  rows: readonly TRow[] | undefined;
  /** What is loading, as in "Loading root keys…". */
  loadingLabel: string;
  /** The single row's text when the query answered no rows. */
  emptyMessage: ReactNode;
  rowKey: (row: TRow) => string;
  /** One row's cells, in the order of `columns`. */
  renderCells: (row: TRow) => ReactNode;
}

/**
 * Each cell gets its column's name as `data-label`: on a phone the rows become stacked cards
 * (styles.css) and every value shows under the name of its column.
 */
function labelCells(cells: ReactNode, columns: readonly string[]): ReactNode {
  const list =
    isValidElement<{ children?: ReactNode }>(cells) && cells.type === Fragment ? cells.props.children : cells;
  return Children.map(list, (cell, index) =>
    isValidElement(cell)
      ? cloneElement(cell as ReactElement<{ 'data-label'?: string }>, { 'data-label': columns[index] })
      : cell,
  );
}

/** A list screen's table, with placeholder rows while it loads and one row saying when it is empty. */
export function DataTable<TRow>({
  caption,
  columns,
  query,
  rows,
  loadingLabel,
  emptyMessage,
  rowKey,
  renderCells,
}: DataTableProps<TRow>) {
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
