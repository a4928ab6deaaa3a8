import { UnavailableError } from "../lib/unavailable.ts";
import assert from "node:assert/strict";
import { createPublicClient, type Hex, http, type PublicClient, parseTransaction, stringToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from "vitest";
import type { Journal, TxRow } from "./journal.ts";
import { type Call, Relayer, type RelayerOptions, TxDroppedError, TxPendingError } from "./relayer.ts";
import { FakeGeth } from "../support/net/fake-geth.ts";
import { openTestJournal } from "../support/relayer/journal.ts";

/**
 * The relayer against a node that queues future nonces as geth does (support/net/fake-geth.ts):
 * a nonce the relayer takes and leaves unused stalls every later transaction of the account there,
 * where Hardhat's automine would refuse them instead.
 */

// Hardhat's first test account: a fixed, public key.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const CHAIN_ID = 31337;
const TO = "0x00000000000000000000000000000000000000c0" as const;
const GAS = 100_000n;
const ETH = 10n ** 18n;

let journal: Journal;
let closeJournal: (() => Promise<void>) | undefined;
let node: FakeGeth;
let server: { url: string; close(): Promise<void> };
let client: PublicClient;
let batching: PublicClient;

beforeAll(async () => {
  ({ journal, close: closeJournal } = await openTestJournal("relayer-gaps"));
});
afterAll(() => closeJournal?.());
beforeEach(async () => {
  await journal.clear();
  node = new FakeGeth({ chainId: CHAIN_ID });
  server = await node.serve();
  // As the API's writes build them (api/writes/start.ts): one client, and one batching the broadcasts.
  client = createPublicClient({ transport: http(server.url, { retryCount: 0 }) }) as PublicClient;
  batching = createPublicClient({
    transport: http(server.url, { retryCount: 0, batch: { wait: 0 } }),
  }) as PublicClient;
});
afterEach(() => server.close());

const callOf = (writeId: string, value = 0n): Call => ({ to: TO, data: stringToHex(writeId), value, gas: GAS });

async function newWrite(id: string): Promise<string> {
  await journal.insertWrite({
    id,
    userId: "u-1",
    kind: "spawn",
    idempotencyKey: null,
    requestHash: id,
    feeHeld: false,
    createdAt: 0,
  });
  return id;
}

function relayerOn(options: Partial<RelayerOptions> = {}): Relayer {
  return new Relayer({
    client,
    broadcastClient: batching,
    account,
    chainId: CHAIN_ID,
    journal,
    receiptTimeoutMs: 2_000,
    replaceAfterMs: 60_000,
    pollMs: 10,
    minBalanceWei: 0n,
    // One balance read serves the whole test: what the relayer believes is what it read first.
    chainStateTtlMs: 60_000,
    ...options,
  });
}

/** The receipt of the write's transaction, or a failure naming the nonces stuck behind a gap. */
async function minedOrStalled(relayer: Relayer, writeId: string, sent?: TxRow) {
  try {
    return await relayer.mined(writeId, { sent });
  } catch (error) {
    if (!(error instanceof TxPendingError)) throw error;
    assert.fail(
      `write ${writeId} stalled: the node's next nonce is ${node.pendingNonce(account.address)} and nonces ` +
        `${node.queued(account.address).join(", ")} wait queued behind it`,
    );
  }
}

/** Every nonce from 0 to the state nonce mined once, nothing left queued. */
function assertNoGap(expectedNonces: number) {
  assert.deepEqual(node.queued(account.address), [], "nothing waits behind a gap");
  assert.equal(node.stateNonce(account.address), expectedNonces);
  const nonces = node.minedTxs.filter((tx) => tx.from === account.address).map((tx) => tx.nonce);
  assert.deepEqual(nonces, [...Array(expectedNonces).keys()], "every nonce mined once, in order");
}

const isFiller = (tx: { to: Hex | null; value: bigint; data: Hex; gas: bigint }) =>
  tx.to === account.address && tx.value === 0n && tx.data === "0x" && tx.gas === 21_000n;

describe("Relayer on a node that queues future nonces", () => {
  it("a write refused for insufficient funds in the middle of a burst does not stall the writes after it: its nonce is filled", async () => {
    node.setBalance(account.address, 10n * ETH);
    const relayer = relayerOn();
    const first = await relayer.send(await newWrite("w0"), callOf("w0"));
    await minedOrStalled(relayer, "w0", first);
    // The node now holds 1 ETH while the relayer's last read said 10 (another node behind the
    // provider, a spend it did not see): the write carrying 2 ETH is refused by the node.
    node.setBalance(account.address, ETH);
    const ids = ["w1", "w2", "w3", "w4", "w5"];
    for (const id of ids) await newWrite(id);
    const outcomes = await Promise.allSettled(
      ids.map((id) => relayer.send(id, callOf(id, id === "w3" ? 2n * ETH : 0n))),
    );

    const refused = outcomes[2]!;
    assert.equal(refused.status, "rejected");
    assert.match(String((refused as PromiseRejectedResult).reason), /insufficient funds/);
    for (const [i, id] of ids.entries()) {
      if (id === "w3") continue;
      const outcome = outcomes[i]!;
      assert.equal(outcome.status, "fulfilled", `${id}: ${(outcome as PromiseRejectedResult).reason}`);
      const receipt = await minedOrStalled(relayer, id, (outcome as PromiseFulfilledResult<TxRow>).value);
      assert.equal(receipt.status, "success");
    }
    assertNoGap(6);
    const atRefused = node.minedTxs.find((tx) => tx.nonce === 3)!;
    assert.ok(isFiller(atRefused), "the refused write's nonce went to a zero-value transfer to the relayer itself");
    assert.deepEqual(await journal.txsOf("w3"), [], "the refused write has no transaction left to wait for");
    assert.deepEqual(
      (await journal.fillersAt(3)).map((f) => f.hash),
      [atRefused.hash],
      "the filler was journalled before it was broadcast",
    );
  });

  it("a burst of writes worth more than the balance is cut by the relayer, counting what is in flight: the node refuses none", async () => {
    node.automine = false;
    const relayer = relayerOn();
    const fees = await client.estimateFeesPerGas();
    const value = ETH / 10n;
    const cost = value + GAS * fees.maxFeePerGas;
    // Four fit, a fifth does not (by one wei); each one alone would.
    node.setBalance(account.address, 5n * cost - 1n);
    const refusedByNode: string[] = [];
    const ids = [...Array(10).keys()].map((i) => `b${i}`);
    for (const id of ids) await newWrite(id);
    const outcomes = await Promise.allSettled(ids.map((id) => relayer.send(id, callOf(id, value))));
    for (const outcome of outcomes)
      if (outcome.status === "rejected" && !(outcome.reason instanceof UnavailableError))
        refusedByNode.push((outcome.reason as { details?: string }).details ?? String(outcome.reason));

    assert.deepEqual(refusedByNode, [], "the node refused nothing");
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 4, "exactly the four that fit were sent");
    for (const outcome of outcomes)
      if (outcome.status === "rejected") assert.match((outcome.reason as Error).message, /in flight.*top it up/);
    assert.deepEqual(
      node.pooled(account.address).map((tx) => tx.nonce),
      [0, 1, 2, 3],
      "the four in the node's pool, no gap",
    );
    node.mine();
    assertNoGap(4);
  });

  it("a write journalled before a crash and refused when the next process rebroadcasts it has its nonce filled by the reconcile", async () => {
    node.setBalance(account.address, 10n * ETH);
    const crashed = relayerOn({
      beforeBroadcast: (tx) => {
        if (tx.writeId === "w-crash") throw new Error("the process was killed");
      },
    });
    await crashed.send(await newWrite("w-before"), callOf("w-before"));
    await assert.rejects(crashed.send(await newWrite("w-crash"), callOf("w-crash", 5n * ETH)), /killed/);
    const [journalled] = await journal.txsOf("w-crash");
    assert.equal(journalled?.nonce, 1, "journalled, never broadcast");
    // Meanwhile the balance fell below what the journalled transaction needs.
    node.setBalance(account.address, ETH);

    // The next process's reconcile pass (api/writes reconcileOpen): each open write's
    // transaction is looked up and rebroadcast, until mined or known dropped.
    const next = relayerOn();
    let dropped: unknown;
    for (let pass = 0; pass < 3 && dropped === undefined; pass++)
      await next.mined("w-crash", { timeoutMs: 0, nudge: true }).catch((error: unknown) => {
        if (!(error instanceof TxPendingError)) dropped = error;
      });
    assert.ok(
      dropped !== undefined,
      `after 3 reconcile passes the write is still pending and the node's next nonce still ${node.pendingNonce(account.address)}`,
    );
    assert.ok(dropped instanceof TxDroppedError, "the write is told its transaction will never be mined");
    assert.match((dropped as Error).message, /refused.*filled/);
    assert.deepEqual(await journal.txsOf("w-crash"), [], "so the next pass abandons it (fee released)");
    const filler = node.minedTxs.find((tx) => tx.nonce === 1)!;
    assert.ok(isFiller(filler));

    const after = await next.send(await newWrite("w-after"), callOf("w-after"));
    assert.equal(after.nonce, 2);
    await minedOrStalled(next, "w-after", after);
    assertNoGap(3);
  });

  it("a write sent after a crash, before any reconcile, is not stalled by a journalled write the node now refuses", async () => {
    node.setBalance(account.address, 10n * ETH);
    const crashed = relayerOn({
      beforeBroadcast: (tx) => {
        if (tx.writeId === "w-crash") throw new Error("the process was killed");
      },
    });
    await assert.rejects(crashed.send(await newWrite("w-crash"), callOf("w-crash", 5n * ETH)), /killed/);
    node.setBalance(account.address, ETH);

    const next = relayerOn();
    const sent = await next.send(await newWrite("w-next"), callOf("w-next"));
    assert.equal(sent.nonce, 1, "after the journalled nonce");
    await minedOrStalled(next, "w-next", sent);
    assertNoGap(2);
    assert.ok(isFiller(node.minedTxs[0]!), "nonce 0, which the node refused, was filled");
  });

  it("a journalled write the node still takes after a crash is sent again, not filled", async () => {
    node.setBalance(account.address, 10n * ETH);
    const crashed = relayerOn({
      beforeBroadcast: () => {
        throw new Error("the process was killed");
      },
    });
    await assert.rejects(crashed.send(await newWrite("w-crash"), callOf("w-crash", ETH)), /killed/);
    const next = relayerOn();
    const sent = await next.send(await newWrite("w-next"), callOf("w-next"));
    await minedOrStalled(next, "w-next", sent);
    assert.equal((await next.mined("w-crash", { timeoutMs: 0, nudge: true })).status, "success");
    assertNoGap(2);
    assert.equal(parseTransaction(node.minedTxs[0]!.raw).value, ETH, "the write itself took nonce 0");
  });
});
