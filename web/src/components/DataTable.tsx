import { Fragment, type ReactNode } from "react";
import { Empty } from "./states.tsx";

/** One column of a DataTable: its header and how a row fills its cell. */
export interface Column<T> {
  header: string;
  /**
   * The header is for screen readers only: a column of buttons needs a name for its cells, not
   * a visible title above them.
   */
  hideHeader?: boolean;
  /** Right-aligned with tabular figures, so digits line up down the column. */
  numeric?: boolean;
  cell: (row: T) => ReactNode;
  /** A cell's own class and title, from its row (a side's colour, a status's full reason). */
  cellProps?: (row: T) => { className?: string; title?: string };
}

/**
 * What the table is called for assistive technology: a visible caption, the id of a heading
 * that already says it (so the name is not written twice on the page), or a label.
 */
export type TableName =
  | { caption: string; labelledBy?: never; label?: never }
  | { labelledBy: string; caption?: never; label?: never }
  | { label: string; caption?: never; labelledBy?: never };

const joinClasses = (...names: (string | undefined)[]) => names.filter(Boolean).join(" ") || undefined;

/**
 * A list as a table, designed once: scoped column headers, numeric columns aligned, one keyed row
 * per item (and optionally a detail row under it spanning every column), and the empty state
 * instead of a table with no rows.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  empty,
  detail,
  caption,
  labelledBy,
  label,
}: TableName & {
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** What is said when there is no row. */
  empty: ReactNode;
  /** Shown under a row across all its columns (an order's fills) when it returns something. */
  detail?: (row: T) => ReactNode;
}) {
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    <div className="table-wrap">
      <table aria-labelledby={labelledBy} aria-label={label}>
        {caption !== undefined && <caption className="muted">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? "num" : undefined}>
                {column.hideHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const more = detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr>
                  {columns.map((column) => {
                    const own = column.cellProps?.(row);
                    return (
                      <td
                        key={column.header}
                        className={joinClasses(column.numeric ? "num" : undefined, own?.className)}
                        title={own?.title}
                      >
                        {column.cell(row)}
                      </td>
                    );
                  })}
                </tr>
                {more != null && more !== false && (
                  <tr>
                    <td colSpan={columns.length}>{more}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
