import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { type Bucket, locatePage, offsetOf, toPage, totalFromPage } from "./pagination.ts";

describe("offsetOf and toPage", () => {
  it("turns 1-based pages into offsets and echoes the query", () => {
    assert.equal(offsetOf({ page: 1, pageSize: 20 }), 0);
    assert.equal(offsetOf({ page: 4, pageSize: 25 }), 75);
    assert.deepEqual(toPage(["a"], { page: 2, pageSize: 1 }, 5), { items: ["a"], page: 2, pageSize: 1, totalItems: 5 });
  });
});

describe("totalFromPage", () => {
  it("knows the total from a short page that has items or is the first", () => {
    assert.equal(totalFromPage(0, 7, 20), 7);
    assert.equal(totalFromPage(0, 0, 20), 0);
    assert.equal(totalFromPage(40, 3, 20), 43);
  });

  it("needs a count after a full page or an empty page past the first", () => {
    assert.equal(totalFromPage(0, 20, 20), undefined);
    assert.equal(totalFromPage(40, 0, 20), undefined);
  });
});

describe("locatePage", () => {
  // Buckets newest first: 5 rows in bucket 9, none in 8, 3 in 7, 10 in 6, 2 in 4.
  const buckets: Bucket[] = [
    { bucket: 9, n: 5 },
    { bucket: 7, n: 3 },
    { bucket: 6, n: 10 },
    { bucket: 4, n: 2 },
  ];

  /** The same answer by listing every row: which bucket holds each newest-first position. */
  function model(offset: number, limit: number) {
    const rows = buckets.flatMap(({ bucket, n }) => Array<number>(n).fill(bucket));
    if (offset >= rows.length) return null;
    const page = rows.slice(offset, offset + limit);
    const newest = page[0]!;
    return { newest, oldest: page.at(-1)!, skip: offset - rows.indexOf(newest) };
  }

  it("finds the buckets and the rows to skip for every page", () => {
    for (let limit = 1; limit <= 25; limit++) {
      for (let offset = 0; offset <= 22; offset++) {
        assert.deepEqual(locatePage(buckets, offset, limit), model(offset, limit), `offset ${offset} limit ${limit}`);
      }
    }
  });

  it("is null for an empty list", () => {
    assert.equal(locatePage([], 0, 20), null);
  });
});
