interface TableSkeletonProps {
  columns: number;
  rows?: number;
}

/** Placeholder rows of the table's shape, so the page does not jump when the data arrives. */
export function TableSkeletonRows({ columns, rows = 5 }: TableSkeletonProps) {
  return (
    <>
      {Array.from({ length: rows }, (_, row) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have no identity.
        <tr key={row}>
          {Array.from({ length: columns }, (_, column) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholder cells have no identity.
            <td key={column}>
              <span className="skeleton" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** A block placeholder of a given height while a panel loads. */
export function BlockSkeleton({ height }: { height: string }) {
  return <div className="skeleton block" style={{ height }} aria-hidden="true" />;
}

/** Announces loading to screen readers without moving the layout. */
export function LoadingStatus({ label }: { label: string }) {
  return (
    <p className="visually-hidden" role="status">
      Loading {label}…
    </p>
  );
}
