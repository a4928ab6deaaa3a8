import { describe, expect, it } from "vitest";
import { addLive, mergeLive, pruneLive } from "./live-merge.ts";

const e = (entryId: number) => ({ entryId });
const ids = (rows: { entryId: number }[]) => rows.map((r) => r.entryId);

describe("addLive", () => {
  it("keeps the buffer newest first, whatever order entries arrive in", () => {
    let live = addLive([], e(5));
    live = addLive(live, e(7));
    live = addLive(live, e(6));
    expect(ids(live)).toEqual([7, 6, 5]);
  });

  it("drops a replayed duplicate (a reconnect replays what was missed)", () => {
    const live = addLive(addLive([], e(5)), e(5));
    expect(ids(live)).toEqual([5]);
  });

  it("is bounded, dropping the oldest", () => {
    let live: { entryId: number }[] = [];
    for (let id = 1; id <= 10; id++) live = addLive(live, e(id), 4);
    expect(ids(live)).toEqual([10, 9, 8, 7]);
  });
});

describe("mergeLive", () => {
  const page = [e(10), e(9), e(8)];

  it("puts live entries newer than the page on top", () => {
    expect(ids(mergeLive([e(12), e(11)], page))).toEqual([12, 11, 10, 9, 8]);
  });

  it("shows an entry that is in both the stream and a re-read page once", () => {
    const rows = mergeLive([e(11), e(10)], page);
    expect(ids(rows)).toEqual([11, 10, 9, 8]);
    expect(new Set(ids(rows)).size).toBe(rows.length);
  });

  it("leaves older live entries to the page they belong to", () => {
    expect(ids(mergeLive([e(7)], page))).toEqual([10, 9, 8]);
  });

  it("shows every live entry over an empty page (the first actions)", () => {
    expect(ids(mergeLive([e(2), e(1)], []))).toEqual([2, 1]);
  });
});

describe("pruneLive", () => {
  it("keeps only what a re-read page does not hold yet", () => {
    expect(ids(pruneLive([e(12), e(11), e(10)], [e(11), e(10), e(9)]))).toEqual([12]);
    expect(ids(pruneLive([e(3)], []))).toEqual([3]);
  });
});
