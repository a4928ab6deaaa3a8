import { describe, expect, it } from "vitest";
import { changeView } from "./market-change.ts";

describe("changeView", () => {
  it("colours a rise green and a fall red, exactly at two decimals", () => {
    expect(changeView("0.04", true)).toEqual({ text: "0.04%", className: "buy-text" });
    expect(changeView("-0.09", true)).toEqual({ text: "-0.09%", className: "sell-text" });
    expect(changeView("12345.678", true)).toEqual({ text: "12,345.67%", className: "buy-text" });
    expect(changeView("-0.01", true)).toEqual({ text: "-0.01%", className: "sell-text" });
  });
  it("leaves a real 0% uncoloured", () => {
    expect(changeView("0", true)).toEqual({ text: "0%", className: undefined });
    expect(changeView("-0.00", true)).toEqual({ text: "0%", className: undefined });
  });
  it('says "—" in a neutral colour when nothing traded in the window or no change is known', () => {
    expect(changeView("0", false)).toEqual({ text: "—", className: "muted" });
    expect(changeView(null, true)).toEqual({ text: "—", className: "muted" });
  });
});
