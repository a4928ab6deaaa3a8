import assert from "node:assert/strict";
import type { Address, PublicClient } from "viem";
import { describe, it } from "vitest";
import { balancesOf, holdsAny } from "./balances.ts";

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;

/** A node where `owner` holds `native` wei and, per token, `held`; it records the balanceOf calls. */
const fakeClient = (native: bigint, held: Record<string, bigint>, calls: string[] = []) =>
  ({
    getBalance: async () => native,
    readContract: async (call: { address: Address; functionName: string; args: [Address] }) => {
      calls.push(`${call.address}.${call.functionName}(${call.args[0]})`);
      return held[call.address] ?? 0n;
    },
  }) as unknown as PublicClient;

describe("balancesOf", () => {
  it("reads the native coin and each token's ERC-20 balanceOf of the owner", async () => {
    const calls: string[] = [];
    const balances = await balancesOf(fakeClient(5n, { [at(1)]: 7n }, calls), at(9), [at(1), at(2)]);
    assert.equal(balances.native, 5n);
    assert.deepEqual(
      [...balances.tokens],
      [
        [at(1), 7n],
        [at(2), 0n],
      ],
    );
    assert.deepEqual(calls, [`${at(1)}.balanceOf(${at(9)})`, `${at(2)}.balanceOf(${at(9)})`]);
  });

  it("holdsAny: true for any coin or token held, false for nothing", async () => {
    assert.equal(holdsAny(await balancesOf(fakeClient(0n, {}), at(9), [at(1)])), false);
    assert.equal(holdsAny(await balancesOf(fakeClient(1n, {}), at(9), [at(1)])), true);
    assert.equal(holdsAny(await balancesOf(fakeClient(0n, { [at(1)]: 1n }), at(9), [at(1)])), true);
  });
});
