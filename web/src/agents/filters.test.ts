import { describe, expect, it } from "vitest";
import {
  actionLogApiFilters,
  actionLogSearch,
  fromDateTimeLocal,
  parseActionLogFilters,
  parseWorkerFilters,
  toDateTimeLocal,
  workerSearch,
} from "./filters.ts";

describe("action log filters in the URL", () => {
  it("reads every filter a shared link carries", () => {
    expect(parseActionLogFilters("?tier=queen&type=override&token=7&since=100&until=200&page=3")).toEqual({
      tier: "queen",
      type: "override",
      token: "7",
      since: 100,
      until: 200,
      page: 3,
    });
  });

  it("drops values the API would refuse instead of sending them", () => {
    expect(parseActionLogFilters("tier=king&type=Bad-Type&token=0x12&since=-5&until=soon&page=0")).toEqual({
      tier: undefined,
      type: undefined,
      token: undefined,
      since: undefined,
      until: undefined,
      page: 1,
    });
    expect(parseActionLogFilters("page=abc").page).toBe(1);
    expect(parseActionLogFilters(`type=${"a".repeat(33)}`).type).toBeUndefined();
  });

  it("swaps a range written backwards (the API answers 400 to since > until)", () => {
    const f = parseActionLogFilters("since=500&until=100");
    expect([f.since, f.until]).toEqual([100, 500]);
  });

  it("keeps uint256 token ids as digits, leading zeros dropped", () => {
    const big = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    expect(parseActionLogFilters(`token=${big}`).token).toBe(big);
    expect(parseActionLogFilters("token=007").token).toBe("7");
    expect(parseActionLogFilters("token=0").token).toBe("0");
  });

  it("writes one URL per view: fixed order, unset filters and page 1 left out", () => {
    expect(actionLogSearch({ page: 1 })).toBe("");
    expect(actionLogSearch({ until: 9, type: "flag", tier: "scout", page: 2 })).toBe(
      "tier=scout&type=flag&until=9&page=2",
    );
    expect(actionLogSearch({ since: 0, page: 1 })).toBe("since=0");
  });

  it("round-trips: parse(serialize(f)) is f", () => {
    const views = [
      { page: 1 },
      { tier: "worker", page: 4 },
      { type: "config_update", token: "12", since: 1_700_000_000, until: 1_700_086_400, page: 1 },
    ] as const;
    for (const view of views) {
      const parsed = parseActionLogFilters(actionLogSearch(view));
      expect(actionLogSearch(parsed)).toBe(actionLogSearch(view));
      for (const [key, value] of Object.entries(view)) expect(parsed[key as keyof typeof parsed]).toBe(value);
    }
  });

  it("names the API's query parameters", () => {
    expect(actionLogApiFilters(parseActionLogFilters("tier=queen&type=flag&token=3&since=1&until=2&page=5"))).toEqual({
      sourceTier: "queen",
      actionType: "flag",
      tokenId: "3",
      since: 1,
      until: 2,
    });
    expect(actionLogApiFilters({ page: 1 })).toEqual({});
  });
});

describe("worker filters in the URL", () => {
  it("reads status and token address, lower-cased", () => {
    const address = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF01";
    expect(parseWorkerFilters(`status=suspended&token=${address}&page=2`)).toEqual({
      status: "suspended",
      token: address.toLowerCase(),
      page: 2,
    });
    expect(parseWorkerFilters("status=paused&token=0x12")).toEqual({ status: undefined, token: undefined, page: 1 });
  });

  it("writes one URL per view", () => {
    expect(workerSearch({ page: 1 })).toBe("");
    expect(workerSearch(parseWorkerFilters("page=2&status=idle"))).toBe("status=idle&page=2");
  });
});

describe("datetime-local values", () => {
  it("round-trips a whole minute in the local time zone", () => {
    const t = fromDateTimeLocal("2026-04-29T12:34")!;
    expect(toDateTimeLocal(t)).toBe("2026-04-29T12:34");
    expect(t % 60).toBe(0);
  });

  it("makes an upper bound cover its whole minute", () => {
    expect(fromDateTimeLocal("2026-04-29T12:34", true)).toBe(fromDateTimeLocal("2026-04-29T12:34")! + 59);
    expect(fromDateTimeLocal("2026-04-29T12:34:10", true)).toBe(fromDateTimeLocal("2026-04-29T12:34")! + 10);
  });

  it("reads an empty or impossible value as no bound", () => {
    expect(fromDateTimeLocal("")).toBeUndefined();
    expect(fromDateTimeLocal("2026-02-30T10:00")).toBeUndefined();
    expect(fromDateTimeLocal("yesterday")).toBeUndefined();
  });
});
