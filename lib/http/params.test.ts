import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { addressParam, addressText, decimalTextParam, integerParam, pageNumberQuery, pageSizeQuery } from "./params.ts";

describe("integerParam", () => {
  const param = integerParam(1, 100, "must be an integer from 1 to 100");
  it("takes digits only, then checks the range", () => {
    assert.equal(param.parse("42"), 42);
    assert.equal(param.parse("007"), 7);
    for (const text of ["0", "101", "-1", "1.5", "0x2", "1e1", " 2 ", "", "12345678901234567"])
      assert.equal(param.safeParse(text).success, false, JSON.stringify(text));
  });
});

describe("page queries", () => {
  it("use the names and defaults each API's SPEC.md endpoints use", () => {
    assert.deepEqual(pageSizeQuery().parse({}), { page: 1, pageSize: 20 });
    assert.deepEqual(pageNumberQuery().parse({}), { pageNumber: 1, pageSize: 50 });
    assert.equal(
      pageNumberQuery().safeParse({ pageSize: "101" }).error?.issues[0]?.message,
      "Too big: expected number to be <=100",
    );
  });
});

describe("addresses", () => {
  it("take any letter case; addressParam lower-cases", () => {
    const mixed = "0xAbCdEf0123456789abcdef0123456789ABCDEF01";
    assert.equal(addressText.parse(mixed), mixed);
    assert.equal(addressParam.parse(mixed), mixed.toLowerCase());
    for (const text of ["0x12", "AbCdEf0123456789abcdef0123456789ABCDEF0123", `${mixed}0`])
      assert.equal(addressParam.safeParse(text).error?.issues[0]?.message, "must be a 0x-prefixed 20-byte hex address");
  });
});

describe("decimalTextParam", () => {
  it("takes plain non-negative decimals only", () => {
    assert.equal(decimalTextParam.parse("12.5"), "12.5");
    for (const text of ["-1", "1e3", ".5", "1.", "1".repeat(101)])
      assert.equal(decimalTextParam.safeParse(text).success, false);
  });
});
