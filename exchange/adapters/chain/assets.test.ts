import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { Deployment } from "../../../lib/deployments.ts";
import { ReferenceData } from "../../application/index.ts";
import { DEMO_BASE_MARKET } from "../../demo/reference-data.ts";
import { depositTokens } from "./assets.ts";

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as const;
const deployment = {
  chainId: 31337,
  contracts: { MockStableToken: at(0xa1), WrappedNative: at(0xa2) },
  accounts: {},
} as unknown as Deployment;
const reference = () => new ReferenceData(DEMO_BASE_MARKET.currencies, DEMO_BASE_MARKET.pairs, []);

describe("depositTokens", () => {
  it("maps the stable token to USDT and the wrapped native token to ETH", () => {
    assert.deepEqual([...depositTokens(reference(), deployment)].sort(), [
      [at(0xa1), "USDT"],
      [at(0xa2), "ETH"],
    ]);
  });

  it("is built once per version of the currencies, and again when a listing adds one", () => {
    const data = reference();
    const first = depositTokens(data, deployment);
    assert.equal(depositTokens(data, deployment), first, "the same currencies: the cached map");
    const usdt = DEMO_BASE_MARKET.currencies.find((row) => row.code === "USDT")!;
    data.addCurrency({ ...usdt, code: "ALPHA", name: "Alpha", decimals: 18, contractAddress: at(0xa3) });
    const bound = depositTokens(data, deployment);
    assert.notEqual(bound, first);
    assert.equal(bound.get(at(0xa3)), "ALPHA");
    assert.equal(depositTokens(reference(), deployment).get(at(0xa3)), undefined, "a reload is another object");
  });
});
