import assert from "node:assert/strict";
import { HttpRequestError, InvalidInputRpcError, RpcRequestError, TimeoutError } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, it } from "vitest";
import { costOfRaw, InFlight, refusalOf } from "./nonces.ts";

const viemRefusal = (message: string) =>
  new InvalidInputRpcError(
    new RpcRequestError({ body: {}, error: { code: -32000, message }, url: "http://node.test" }),
  );

describe("refusalOf", () => {
  // geth's, Hardhat's (EDR) and a few providers' answers to eth_sendRawTransaction.
  const cases: [string, ReturnType<typeof refusalOf>][] = [
    ["already known", "known"],
    ["Known transaction: 0xabc", "known"],
    ["nonce too low: address 0x1, tx: 5 state: 8", "taken"],
    ["Nonce too low. Expected nonce to be 8 but got 5.", "taken"],
    ["replacement transaction underpriced", "taken"],
    [
      "Nonce too high. Expected nonce to be 5 but got 6. Note that transactions can't be queued when automining.",
      "early",
    ],
    ["max fee per gas less than block base fee: address 0x1, maxFeePerGas: 1, baseFee: 2", "fees"],
    ["Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 2", "fees"],
    ["transaction underpriced: tip needed 1, tip permitted 0", "fees"],
    ["insufficient funds for gas * price + value: balance 1, queued cost 2, tx cost 3, overshot 4", "refused"],
    [
      "Sender doesn't have enough funds to send tx. The max upfront cost is: 3 and the sender's balance is: 1.",
      "refused",
    ],
    ["intrinsic gas too low", "refused"],
    ["exceeds block gas limit", "refused"],
    ["request timed out", "lost"],
  ];
  for (const [message, kind] of cases)
    it(`"${message.slice(0, 40)}..." is ${kind}`, () => {
      assert.equal(refusalOf(viemRefusal(message)), kind);
      assert.equal(refusalOf(new Error(message)), kind);
    });

  it("no answer (a timeout, a lost connection) is lost: the node may have the bytes", () => {
    assert.equal(refusalOf(new TimeoutError({ body: {}, url: "http://node.test" })), "lost");
    assert.equal(refusalOf(new HttpRequestError({ url: "http://node.test", details: "ECONNRESET" })), "lost");
  });
});

describe("InFlight", () => {
  it("counts the dearest version at each nonce from the confirmed one on, and forgets what is mined", () => {
    const inFlight = new InFlight();
    inFlight.commit(3, 10n);
    inFlight.commit(4, 20n);
    inFlight.commit(4, 15n);
    inFlight.commit(5, 7n);
    assert.equal(inFlight.committed(3), 37n);
    assert.equal(inFlight.committed(4), 27n);
    inFlight.commit(3, 100n);
    assert.equal(inFlight.committed(4), 27n, "nonce 3 was forgotten once confirmed");
    inFlight.set(4, 1n);
    inFlight.forget(5);
    assert.equal(inFlight.committed(4), 1n);
  });

  it("costOfRaw is value + gas * maxFeePerGas of signed bytes, 0 for bytes that do not parse", async () => {
    const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const raw = await account.signTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      to: account.address,
      value: 5n,
      gas: 21_000n,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 1n,
    });
    assert.equal(costOfRaw(raw), 5n + 21_000n * 3n);
    assert.equal(costOfRaw("0x01"), 0n);
  });
});
