import { describe, expect, it } from "vitest";
import { parseExactJson } from "./lossless-json.ts";

describe("parseExactJson", () => {
  it("keeps decimals as their exact digits and integer keys as numbers", () => {
    const parsed = parseExactJson<{ price: string; amount: string; timestamp: number; nested: { p: string }[] }>(
      '{"price": 0.1000000000000000055, "amount": 123456789012345678.5, "timestamp": 1800000000, "nested": [{"p": 2000}]}',
    );
    expect(parsed).toEqual({
      price: "0.1000000000000000055",
      amount: "123456789012345678.5",
      timestamp: 1_800_000_000,
      nested: [{ p: "2000" }],
    });
  });
});
