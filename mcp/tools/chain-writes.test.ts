import { ContractFunctionRevertedError, encodeErrorResult, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { SlippageCapExceeded } from "../../agents/sdk/actions.ts";
import { toolError, toolResult } from "../errors.ts";
import { chainFailure, createIdempotency } from "./chain-writes.ts";

const abi = parseAbi(["error UnauthorizedAgent(address caller, uint256 targetTokenId)"]);
const revert = () =>
  new ContractFunctionRevertedError({
    abi,
    functionName: "record",
    data: encodeErrorResult({
      abi,
      errorName: "UnauthorizedAgent",
      args: ["0x00000000000000000000000000000000000000aa", 7n],
    }),
  });

describe("chainFailure", () => {
  it("names a contract's custom error as the code, with its arguments", () => {
    expect(chainFailure(revert())).toEqual({
      code: "UNAUTHORIZED_AGENT",
      message:
        "the contract refused: UnauthorizedAgent(0x00000000000000000000000000000000000000AA, 7); nothing was done",
    });
  });

  it("says a swap beyond the cap was not sent; anything else is not a refusal", () => {
    expect(chainFailure(new SlippageCapExceeded(250n, 100n))?.code).toBe("SLIPPAGE_CAP_EXCEEDED");
    expect(chainFailure(new Error("socket hang up"))).toBeUndefined();
  });
});

describe("createIdempotency", () => {
  it("answers a retry with the first answer and runs once; other arguments under the key are refused", async () => {
    const once = createIdempotency();
    let runs = 0;
    const run = async () => toolResult({ txHash: `0x${++runs}` });
    const first = await once("k", { a: 1 }, run);
    expect(await once("k", { a: 1 }, run)).toEqual(first);
    expect(runs).toBe(1);
    const other = await once("k", { a: 2 }, run);
    expect(other.isError).toBe(true);
    expect(JSON.parse((other.content[0] as { text: string }).text).code).toBe("IDEMPOTENCY_KEY_REUSED");
    await once(undefined, { a: 1 }, run);
    expect(runs).toBe(2);
  });

  it("lets a refused call be retried under its key", async () => {
    const once = createIdempotency();
    let runs = 0;
    const refused = async () => {
      runs++;
      return toolError({ code: "UNAVAILABLE", message: "node away" });
    };
    await once("k", {}, refused);
    await once("k", {}, refused);
    expect(runs).toBe(2);
  });
});
