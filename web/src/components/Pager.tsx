/** Previous/next paging of SPEC.md's lists (page, pageSize, totalItems). */
export function Pager({
  page,
  pageSize,
  totalItems,
  noun,
  label,
  onPage,
}: {
  page: number;
  pageSize: number;
  totalItems: number;
  noun: string;
  label: string;
  onPage: (page: number) => void;
}) {
  const totalPages = Math.max(1, Math.ceil(totalItems / pageSize));
  return (
    <nav className="row" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {totalPages} ({totalItems} {noun})
      </span>
      <button type="button" className="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
