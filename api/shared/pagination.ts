/** Offset pagination: `page` and `pageSize` in, `items, page, pageSize, totalItems` out. */

export interface PageQuery {
  page: number;
  pageSize: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalItems: number;
}

export const offsetOf = ({ page, pageSize }: PageQuery) => (page - 1) * pageSize;

/** A page answer: the items of one page and where the page stands in the whole list. */
export const toPage = <T>(items: T[], query: PageQuery, totalItems: number): Page<T> => ({
  items,
  page: query.page,
  pageSize: query.pageSize,
  totalItems,
});

/** Matching rows per id bucket (ids bucket..bucket's end), newest bucket first. */
export interface Bucket {
  bucket: number;
  n: number;
}

/** Where a newest-first page lies in a bucket histogram. */
export interface PageLocation {
  /** Bucket of the page's newest row. */
  newest: number;
  /** Bucket of the page's oldest row. */
  oldest: number;
  /** Rows of the page's range that come before the page (newer than it). */
  skip: number;
}

/**
 * Locates the rows [offset, offset + limit) of a newest-first list from a histogram of the
 * list over id buckets, so the page is read from a narrow id range instead of skipping
 * `offset` rows. Null when the page is past the end.
 */
export function locatePage(buckets: readonly Bucket[], offset: number, limit: number): PageLocation | null {
  let before = 0;
  let newest: number | undefined;
  let skip = 0;
  for (const { bucket, n } of buckets) {
    if (newest === undefined && before + n > offset) {
      newest = bucket;
      skip = offset - before;
    }
    if (newest !== undefined && before + n >= offset + limit) return { newest, oldest: bucket, skip };
    before += n;
  }
  return newest === undefined ? null : { newest, oldest: buckets.at(-1)!.bucket, skip };
}

/**
 * The total, when a page already shows it: a short page that is the first, or that has items,
 * ends the list. Undefined when a count is needed.
 */
export function totalFromPage(offset: number, returned: number, pageSize: number): number | undefined {
  if (returned >= pageSize) return undefined;
  if (returned === 0 && offset > 0) return undefined;
  return offset + returned;
}
