import { describe, expect, it } from "vitest";
import { groupLevels, LocalBook } from "./orderbook.ts";

const snapshot = {
  lastUpdateId: 10,
  bids: [
    ["2000.5", "1"],
    ["1999", "2"],
  ] as [string, string][],
  asks: [
    ["2001", "1.5"],
    ["2002.25", "3"],
  ] as [string, string][],
};

describe("LocalBook", () => {
  it("buffers diffs until the snapshot, drops those it already holds, applies the rest", () => {
    const book = new LocalBook();
    expect(book.applyDiff({ U: 8, u: 9, b: [["1999", "7"]], a: [] })).toBe("buffered");
    expect(book.applyDiff({ U: 10, u: 11, b: [["2000.5", "0"]], a: [["2001", "2"]] })).toBe("buffered");
    expect(book.applySnapshot(snapshot)).toBe("synced");
    // 8..9 was older than the snapshot: 1999 keeps 2. 10..11 straddles it and applies.
    expect(book.levels("bids")).toEqual([["1999", "2"]]);
    expect(book.levels("asks")).toEqual([
      ["2001", "2"],
      ["2002.25", "3"],
    ]);
    expect(book.updateId).toBe(11);
  });

  it("applies consecutive diffs; amount 0 removes a level; one price however written", () => {
    const book = new LocalBook();
    book.applySnapshot(snapshot);
    expect(book.applyDiff({ U: 11, u: 12, b: [["2000.50", "4"]], a: [["2001.0", "0"]] })).toBe("applied");
    expect(book.levels("bids")[0]).toEqual(["2000.5", "4"]);
    expect(book.levels("asks")).toEqual([["2002.25", "3"]]);
    expect(book.applyDiff({ U: 5, u: 12, b: [], a: [] })).toBe("stale");
  });

  it("detects a gap (a missed diff) and waits for a new snapshot", () => {
    const book = new LocalBook();
    book.applySnapshot(snapshot);
    expect(book.applyDiff({ U: 13, u: 14, b: [], a: [] })).toBe("gap");
    expect(book.state).toBe("waiting_snapshot");
    expect(book.applyDiff({ U: 15, u: 15, b: [["1", "1"]], a: [] })).toBe("buffered");
    book.reset();
    expect(book.applySnapshot({ ...snapshot, lastUpdateId: 20 })).toBe("synced");
  });

  it("reports a gap when the buffered diffs do not join the snapshot", () => {
    const book = new LocalBook();
    book.applyDiff({ U: 15, u: 16, b: [], a: [] });
    expect(book.applySnapshot(snapshot)).toBe("gap");
  });

  it("sorts prices numerically, not as text", () => {
    const book = new LocalBook();
    book.applySnapshot({
      lastUpdateId: 1,
      bids: [
        ["9.5", "1"],
        ["10", "1"],
        ["100", "1"],
      ],
      asks: [],
    });
    expect(book.levels("bids").map(([p]) => p)).toEqual(["100", "10", "9.5"]);
  });
});

describe("groupLevels", () => {
  it("groups bids down and asks up to the step, summing amounts exactly", () => {
    const bids = [
      ["2000.5", "0.1"],
      ["2000.2", "0.2"],
      ["1999.9", "1"],
    ] as const;
    expect(groupLevels([...bids], "1", "bids")).toEqual([
      ["2000", "0.3"],
      ["1999", "1"],
    ]);
    const asks = [
      ["2000.1", "0.1"],
      ["2000.9", "0.2"],
      ["2001", "5"],
    ] as const;
    expect(groupLevels([...asks], "1", "asks")).toEqual([["2001", "5.3"]]);
    expect(groupLevels([...asks], "0.5", "asks")).toEqual([
      ["2000.5", "0.1"],
      ["2001", "5.2"],
    ]);
  });
  it("keeps at most `limit` levels, best first", () => {
    const levels = Array.from({ length: 30 }, (_, i) => [String(100 + i), "1"] as const);
    const grouped = groupLevels([...levels], "1", "bids", 5);
    expect(grouped.map(([p]) => p)).toEqual(["129", "128", "127", "126", "125"]);
  });
});
