import assert from "node:assert/strict";
import { createPublicClient, type Hex, http, InvalidInputRpcError, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, it } from "vitest";
import { FakeGeth, RpcFault } from "./fake-geth.ts";

// Hardhat's first two test accounts: fixed, public keys.
const alice = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const bob = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const CHAIN_ID = 31337;
const GWEI = 1_000_000_000n;
const ETH = 10n ** 18n;

const signed = (nonce: number, { value = 0n, fee = 3n * GWEI, tip = GWEI, from = alice } = {}) =>
  from.signTransaction({
    type: "eip1559",
    chainId: CHAIN_ID,
    nonce,
    to: bob.address,
    value,
    gas: 21_000n,
    maxFeePerGas: fee,
    maxPriorityFeePerGas: tip,
  });

async function refusal(node: FakeGeth, raw: Hex): Promise<string> {
  try {
    await node.sendRawTransaction(raw);
  } catch (error) {
    assert.ok(error instanceof RpcFault);
    assert.equal(error.code, -32000);
    return error.message;
  }
  assert.fail("the node took it");
}

describe("FakeGeth (a transaction pool as geth's)", () => {
  it("queues a nonce ahead of the next one, mines nothing after a gap, and mines the run in order once it is filled", async () => {
    const node = new FakeGeth({ chainId: CHAIN_ID });
    node.setBalance(alice.address, ETH);
    await node.sendRawTransaction(await signed(0));
    await node.sendRawTransaction(await signed(2));
    await node.sendRawTransaction(await signed(3));
    assert.equal(node.stateNonce(alice.address), 1);
    assert.equal(node.pendingNonce(alice.address), 1);
    assert.deepEqual(node.queued(alice.address), [2, 3]);
    await node.sendRawTransaction(await signed(1));
    assert.equal(node.stateNonce(alice.address), 4);
    assert.deepEqual(
      node.minedTxs.map((tx) => tx.nonce),
      [0, 1, 2, 3],
    );
    assert.deepEqual(node.queued(alice.address), []);
  });

  it("refuses what the balance does not cover on top of every pooled transaction's cost, queued ones included", async () => {
    const node = new FakeGeth({ chainId: CHAIN_ID, automine: false });
    const cost = ETH / 10n + 21_000n * 3n * GWEI;
    node.setBalance(alice.address, 2n * cost);
    await node.sendRawTransaction(await signed(0, { value: ETH / 10n }));
    await node.sendRawTransaction(await signed(5, { value: ETH / 10n }));
    assert.match(
      await refusal(node, await signed(1, { value: ETH / 10n })),
      new RegExp(`^insufficient funds for gas \\* price \\+ value: balance ${2n * cost}, queued cost ${2n * cost}, `),
    );
    assert.match(
      await refusal(node, await signed(2, { value: 3n * cost })),
      /^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot \d+$/,
    );
  });

  it("refuses a nonce already mined, bytes it holds, and a replacement not 10% dearer on both fees", async () => {
    const node = new FakeGeth({ chainId: CHAIN_ID, automine: false });
    node.setBalance(alice.address, ETH);
    const first = await signed(0);
    await node.sendRawTransaction(first);
    assert.equal(await refusal(node, first), "already known");
    assert.equal(
      await refusal(node, await signed(0, { fee: (3n * GWEI * 109n) / 100n, tip: 2n * GWEI })),
      "replacement transaction underpriced",
    );
    const replacement = await signed(0, { fee: (3n * GWEI * 110n) / 100n, tip: (GWEI * 110n) / 100n });
    await node.sendRawTransaction(replacement);
    node.mine();
    assert.equal(node.minedTxs[0]!.raw, replacement);
    assert.match(await refusal(node, await signed(0, { fee: 9n * GWEI, tip: 2n * GWEI })), /^nonce too low/);
  });

  it("drops pooled transactions the balance no longer covers after a block", async () => {
    const node = new FakeGeth({ chainId: CHAIN_ID, automine: false });
    const gas = 21_000n * 3n * GWEI;
    node.setBalance(alice.address, ETH / 2n + 2n * gas);
    await node.sendRawTransaction(await signed(0, { value: ETH / 4n }));
    await node.sendRawTransaction(await signed(1, { value: ETH / 4n }));
    node.setBalance(alice.address, ETH / 4n + gas);
    node.mine();
    assert.equal(node.stateNonce(alice.address), 1);
    assert.deepEqual(node.pooled(alice.address), [], "nonce 1 left the pool: the account's next nonce is a gap");
  });

  it("answers over HTTP as a node does: a batch in order, refusals as viem's InvalidInputRpcError", async () => {
    const node = new FakeGeth({ chainId: CHAIN_ID });
    node.setBalance(alice.address, ETH);
    const server = await node.serve();
    try {
      const client = createPublicClient({
        transport: http(server.url, { retryCount: 0, batch: { wait: 0 } }),
      }) as PublicClient;
      const raws = await Promise.all([signed(0), signed(1, { value: 2n * ETH }), signed(2)]);
      const answers = await Promise.allSettled(
        raws.map((raw) => client.sendRawTransaction({ serializedTransaction: raw })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      const refused = (answers[1] as PromiseRejectedResult).reason;
      assert.ok(refused instanceof InvalidInputRpcError);
      assert.match(refused.details, /^insufficient funds/);
      assert.equal(await client.getTransactionCount({ address: alice.address, blockTag: "pending" }), 1);
      assert.equal(await client.getTransactionCount({ address: alice.address }), 1);
      assert.deepEqual(node.queued(alice.address), [2], "nonce 2 waits behind the refused nonce 1");
      const fees = await client.estimateFeesPerGas();
      assert.equal(fees.maxFeePerGas, (node.baseFeePerGas * 12n) / 10n + GWEI);
    } finally {
      await server.close();
    }
  });
});
