import { describe, expect, it } from "vitest";
import { parseSpawnBody, parseVoteBody } from "./http/body.ts";
import { spawnResponse, voteResponse } from "./schemas.ts";

const failure = (result: ReturnType<typeof parseSpawnBody> | ReturnType<typeof parseVoteBody>) =>
  result.ok ? undefined : { status: result.error.status, code: result.error.code, message: result.error.message };

describe("spawn body", () => {
  it("applies SPEC.md's defaults", () => {
    expect(parseSpawnBody({ name: "Agent", symbol: "AGT" })).toEqual({
      ok: true,
      body: {
        name: "Agent",
        symbol: "AGT",
        totalSupply: "1000000000",
        decimals: 18,
        poolSide: "STABLE",
        metadata: { description: "", logoUri: "", website: "" },
      },
    });
  });

  it("keeps given values", () => {
    const result = parseSpawnBody({
      name: "A",
      symbol: "ABCDE",
      totalSupply: "42",
      decimals: 18,
      poolSide: "WRAPPED_NATIVE",
    });
    expect(result).toMatchObject({ ok: true, body: { totalSupply: "42", poolSide: "WRAPPED_NATIVE" } });
  });

  it.each(["ab", "ABCDEF", "AB1", "abc", "", 123])("symbol %j -> 400 INVALID_SYMBOL", (symbol) => {
    expect(failure(parseSpawnBody({ name: "A", symbol }))).toMatchObject({ status: 400, code: "INVALID_SYMBOL" });
  });

  it.each([
    { name: "x".repeat(51), symbol: "ABC" },
    { name: 5, symbol: "ABC" },
    { symbol: "ABC" },
    { name: "A", symbol: "ABC", poolSide: "OTHER" },
    { name: "A", symbol: "ABC", totalSupply: "0" },
    { name: "A", symbol: "ABC", totalSupply: "1.5" },
    { name: "A", symbol: "ABC", totalSupply: "-1" },
    { name: "A", symbol: "ABC", totalSupply: 1000 },
    { name: "A", symbol: "ABC", decimals: 6 },
    { name: "A", symbol: "ABC", extra: true },
    { name: "é".repeat(26), symbol: "ABC" },
    { name: "A", symbol: "ABC", totalSupply: "1000000000001" },
    { name: "A", symbol: "ABC", metadata: { description: "x".repeat(513) } },
    { name: "A", symbol: "ABC", metadata: { logoUri: 5 } },
    { name: "A", symbol: "ABC", metadata: { other: "x" } },
  ])("%j -> 400 INVALID_PARAM", (body) => {
    expect(failure(parseSpawnBody(body))).toMatchObject({ status: 400, code: "INVALID_PARAM" });
  });

  it("accepts a name of exactly 50 characters", () => {
    expect(parseSpawnBody({ name: "x".repeat(50), symbol: "ABC" }).ok).toBe(true);
  });
});

describe("vote body", () => {
  it("accepts SPEC.md's fields", () => {
    expect(parseVoteBody({ proposalId: "3", vote: "abstain", comment: "hi" })).toEqual({
      ok: true,
      body: { proposalId: "3", vote: "abstain", comment: "hi" },
    });
  });

  it.each([
    { proposalId: "3", vote: "maybe" },
    { proposalId: 3, vote: "yes" },
    { proposalId: "x", vote: "yes" },
    { vote: "yes" },
  ])("%j -> 400 INVALID_PARAM", (body) => {
    expect(failure(parseVoteBody(body))).toMatchObject({ status: 400, code: "INVALID_PARAM" });
  });
});

describe("responses", () => {
  it("spawn and vote answers match SPEC.md's shapes", () => {
    const hash = `0x${"a".repeat(64)}`;
    const address = `0x${"b".repeat(40)}`;
    expect(
      spawnResponse.safeParse({
        token: { address, name: "A", symbol: "ABC", totalSupply: "1000000000", owner: address },
        pool: { address, side: "STABLE", feeTier: 3000 },
        worker: { id: 1, agentNftId: 2 },
        txHash: hash,
      }).success,
    ).toBe(true);
    const currentTally = {
      yesWeight: 1,
      noWeight: 0,
      abstainWeight: 0,
      quorumThreshold: 10,
      quorumReached: false,
      passingThreshold: 0.5,
      currentlyPassing: true,
    };
    expect(
      voteResponse.safeParse({
        voteId: "1",
        proposalId: "3",
        vote: "yes",
        weight: 1,
        txHash: hash,
        votedAt: 1,
        currentTally,
      }).success,
    ).toBe(true);
  });
});
