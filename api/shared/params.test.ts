import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { z } from "zod";
import {
  actionTypeParam,
  addressParam,
  booleanParam,
  nftIdParam,
  pageQuery,
  sourceTierParam,
  tokenRefParam,
  unixSecondsParam,
} from "./params.ts";

const problemOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  assert.equal(result.success, false, `${JSON.stringify(value)} should be refused`);
  return result.error!.issues[0]!.message;
};

describe("pageQuery", () => {
  it("defaults to page 1 of 20", () => {
    assert.deepEqual(pageQuery.parse({}), { page: 1, pageSize: 20 });
  });

  it("accepts integers in range", () => {
    assert.deepEqual(pageQuery.parse({ page: "7", pageSize: "100" }), { page: 7, pageSize: 100 });
    assert.deepEqual(pageQuery.parse({ page: "1000000000", pageSize: "1" }), { page: 1_000_000_000, pageSize: 1 });
  });

  it("refuses anything but plain integers in range, with one message per parameter", () => {
    for (const pageSize of ["0", "101", "-1", "1.5", "1e2", "0x10", " 5", "", "abc", "99999999999999999"]) {
      assert.equal(problemOf(pageQuery, { pageSize }), "must be an integer from 1 to 100", `pageSize=${pageSize}`);
    }
    for (const page of ["0", "-3", "2.0", "1000000001"]) {
      assert.equal(problemOf(pageQuery, { page }), "must be an integer from 1 to 1000000000", `page=${page}`);
    }
  });
});

describe("addressParam", () => {
  it("accepts any case and answers lower case", () => {
    assert.equal(
      addressParam.parse("0xABCDEF0123456789abcdef0123456789ABCDEF01"),
      "0xabcdef0123456789abcdef0123456789abcdef01",
    );
  });

  it("refuses malformed addresses", () => {
    for (const value of [
      "0x123",
      "abcdef0123456789abcdef0123456789abcdef0123",
      "0xZZCDEF0123456789abcdef0123456789ABCDEF01",
    ]) {
      assert.equal(problemOf(addressParam, value), "must be a 0x-prefixed 20-byte hex address");
    }
  });
});

describe("other parameters", () => {
  it("parse NFT ids as bigints of any uint256 size", () => {
    assert.equal(nftIdParam.parse("42"), 42n);
    assert.equal(nftIdParam.parse("1".repeat(78)), BigInt("1".repeat(78)));
    assert.equal(problemOf(nftIdParam, "-1"), "must be a non-negative integer (NFT id)");
  });

  it("take a token reference as an address or an NFT id", () => {
    assert.equal(tokenRefParam.parse("12"), "12");
    assert.equal(
      tokenRefParam.parse("0x00000000000000000000000000000000000000aA"),
      "0x00000000000000000000000000000000000000aA",
    );
    assert.equal(problemOf(tokenRefParam, "ALPHA"), "must be a token address or a registry NFT id");
  });

  it("check enums, patterns and booleans", () => {
    assert.equal(problemOf(sourceTierParam, "bogus"), "must be one of queen, scout, worker");
    assert.equal(actionTypeParam.parse("config_update"), "config_update");
    assert.equal(problemOf(actionTypeParam, "Config-Update"), "must match [a-z0-9_]{1,32}");
    assert.equal(problemOf(actionTypeParam, "a".repeat(33)), "must match [a-z0-9_]{1,32}");
    assert.equal(booleanParam.parse("true"), true);
    assert.equal(booleanParam.parse("false"), false);
    assert.equal(problemOf(booleanParam, "yes"), "must be true or false");
    assert.equal(unixSecondsParam.parse("1700000000"), 1_700_000_000);
    assert.equal(problemOf(unixSecondsParam, "-5"), "must be a Unix time in seconds (integer >= 0)");
  });
});
