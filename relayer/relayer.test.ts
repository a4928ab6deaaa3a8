import { UnavailableError } from "../lib/unavailable.ts";
import assert from "node:assert/strict";
import {
  getAddress,
  type Hex,
  HttpRequestError,
  hexToString,
  InternalRpcError,
  InvalidInputRpcError,
  keccak256,
  type PublicClient,
  parseTransaction,
  RpcRequestError,
  recoverTransactionAddress,
  stringToHex,
  TimeoutError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, it } from "vitest";
import type { Journal, TxRow } from "./journal.ts";
import { type Call, Relayer, type RelayerOptions, TxPendingError } from "./relayer.ts";
import { openTestJournal } from "../support/relayer/journal.ts";

// Hardhat's first test account: a fixed, public key.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const CHAIN_ID = 31337;
const TO = "0x00000000000000000000000000000000000000c0" as const;
const GAS = 100_000n;
const MIN_BALANCE = 10n ** 15n;
const REPLACE_AFTER_MS = 100;

let journal: Journal;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ journal, close } = await openTestJournal("relayer-test"));
});
afterAll(() => close?.());
beforeEach(() => journal.clear());

/** A call whose data names its write, so the node can tell whose bytes it received. */
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

const rpcRefusal = (message: string) =>
  new RpcRequestError({ body: {}, error: { code: -32010, message }, url: "http://node.test" });

/**
 * What viem's http transport actually throws when a node answers eth_sendRawTransaction with
 * {"code": -32000, ...} (geth's code for "nonce too low", "replacement transaction underpriced",
 * "max fee per gas less than block base fee", "insufficient funds"): the RpcRequestError wrapped
 * in an InvalidInputRpcError, which is an RpcError and NOT an RpcRequestError.
 */
const viemRefusal = (message: string) =>
  new InvalidInputRpcError(
    new RpcRequestError({ body: {}, error: { code: -32000, message }, url: "http://node.test" }),
  );

/** The PublicClient methods the relayer calls, over a scripted node. */
class FakeNode {
  fees = { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
  balance = 10n ** 20n;
  pending = 0;
  latest = 0;
  readonly received: Hex[] = [];
  readonly mined = new Set<Hex>();
  /** Reads of the pending nonce (the balance check reads the mined count too). */
  countReads = 0;
  /** Runs as the node receives bytes; throwing refuses them. */
  onSend?: (raw: Hex) => Promise<void> | void;
  /** Runs on every receipt lookup (a clock that moves, a transaction mined on the 3rd look). */
  onReceipt?: (hash: Hex) => void;

  readonly client = {
    estimateFeesPerGas: async () => ({ ...this.fees }),
    getBalance: async ({ address }: { address: string }) => {
      assert.equal(address, account.address);
      return this.balance;
    },
    getTransactionCount: async ({ address, blockTag }: { address: string; blockTag: string }) => {
      assert.equal(address, account.address);
      if (blockTag === "pending") this.countReads++;
      return blockTag === "pending" ? this.pending : this.latest;
    },
    sendRawTransaction: async ({ serializedTransaction }: { serializedTransaction: Hex }) => {
      this.received.push(serializedTransaction);
      await this.onSend?.(serializedTransaction);
      // The node holds it now: its pending count moves past it (as a node's pool does).
      this.pending = Math.max(this.pending, (nonceOf(serializedTransaction) ?? 0) + 1);
      return keccak256(serializedTransaction);
    },
    getTransactionReceipt: async ({ hash }: { hash: Hex }) => {
      this.onReceipt?.(hash);
      if (this.mined.has(hash)) return { transactionHash: hash, status: "success" } as TransactionReceipt;
      throw new TransactionReceiptNotFoundError({ hash });
    },
  } as unknown as PublicClient;
}

let clock: number;
let node: FakeNode;
let relayer: Relayer;
let broadcastHooks: TxRow[];

beforeEach(() => {
  clock = 1_000_000;
  node = new FakeNode();
  broadcastHooks = [];
  relayer = relayerWith({ beforeBroadcast: (tx) => void broadcastHooks.push(tx) });
});

/** A relayer on the fake node and the test's clock, with `options` on top. */
function relayerWith(options: Partial<RelayerOptions>): Relayer {
  return new Relayer({
    client: node.client,
    account,
    chainId: CHAIN_ID,
    journal,
    receiptTimeoutMs: 0,
    replaceAfterMs: REPLACE_AFTER_MS,
    pollMs: 1,
    minBalanceWei: MIN_BALANCE,
    now: () => clock,
    ...options,
  });
}

const nonceOf = (raw: Hex) => parseTransaction(raw).nonce;

describe("Relayer.send", () => {
  it("gives concurrent sends consecutive nonces after the journal's max, each journalled before broadcast", async () => {
    node.pending = 7;
    await newWrite("old");
    await journal.addTx({ hash: "0x01", writeId: "old", nonce: 6, raw: "0x01", sentAt: 0 });
    const ids = await Promise.all(["a", "b", "c", "d", "e"].map(newWrite));
    const journalledAtBroadcast: boolean[] = [];
    node.onSend = async (raw) => {
      const writeId = hexToString(parseTransaction(raw).data!);
      const rows = await journal.txsOf(writeId);
      journalledAtBroadcast.push(
        rows.some((r) => r.hash === keccak256(raw) && r.raw === raw && r.nonce === nonceOf(raw)),
      );
    };
    const txs = await Promise.all(ids.map((id) => relayer.send(id, callOf(id))));

    assert.deepEqual(
      txs.map((t) => t.nonce).sort((x, y) => x - y),
      [7, 8, 9, 10, 11],
    );
    assert.deepEqual(journalledAtBroadcast, [true, true, true, true, true]);
    assert.equal(node.received.length, 5);
    assert.equal(node.countReads, 1, "the nonce is read from the chain once, then counted here");
    assert.deepEqual(
      broadcastHooks.map((t) => t.hash),
      node.received.map((raw) => keccak256(raw)),
      "beforeBroadcast saw each journalled transaction before its bytes went out",
    );
    for (const [i, tx] of txs.entries()) {
      assert.equal(tx.hash, keccak256(tx.raw));
      assert.equal(tx.writeId, ids[i]);
      assert.equal(tx.sentAt, clock);
      const parsed = parseTransaction(tx.raw);
      assert.equal(parsed.type, "eip1559");
      assert.equal(parsed.chainId, CHAIN_ID);
      assert.equal(parsed.to, TO);
      assert.equal(parsed.gas, GAS);
      assert.equal(parsed.maxFeePerGas, node.fees.maxFeePerGas);
      assert.equal(hexToString(parsed.data!), ids[i]);
      assert.equal(await recoverTransactionAddress({ serializedTransaction: tx.raw as never }), account.address);
      assert.deepEqual(await journal.txsOf(ids[i]), [tx]);
    }
  });

  it("starts at the chain's pending count when it is ahead of the journal", async () => {
    node.pending = 42;
    await newWrite("old");
    await journal.addTx({ hash: "0x01", writeId: "old", nonce: 6, raw: "0x01", sentAt: 0 });
    const a = await relayer.send(await newWrite("a"), callOf("a"));
    const b = await relayer.send(await newWrite("b"), callOf("b"));
    assert.deepEqual([a.nonce, b.nonce], [42, 43]);
  });

  it("refuses with UnavailableError below value + gas * maxFee + reserve, taking no nonce", async () => {
    const value = 5n * 10n ** 15n;
    const needed = value + GAS * node.fees.maxFeePerGas + MIN_BALANCE;
    node.balance = needed - 1n;
    node.pending = 9;
    const id = await newWrite("a");
    await assert.rejects(relayer.send(id, callOf(id, value)), (error: Error) => {
      assert.ok(error instanceof UnavailableError);
      assert.match(error.message, new RegExp(`${needed - 1n} wei.*${needed} wei`));
      return true;
    });
    assert.equal(node.received.length, 0);
    assert.equal(await journal.maxNonce(), -1);

    node.balance = needed;
    const tx = await relayer.send(id, callOf(id, value));
    assert.equal(tx.nonce, 9, "the refused send took no nonce");
    assert.equal(parseTransaction(tx.raw).value, value);
  });

  it("fills the nonce of bytes the node refused (insufficient funds) with a zero-value transfer to itself, journalled first", async () => {
    node.pending = 5;
    const a = await newWrite("a");
    let fillerJournalledAtBroadcast = false;
    node.onSend = async (raw) => {
      const tx = parseTransaction(raw);
      if (tx.data !== undefined) throw rpcRefusal("insufficient funds for gas * price + value");
      fillerJournalledAtBroadcast = (await journal.fillersAt(tx.nonce!)).some((f) => f.raw === raw);
    };
    await assert.rejects(relayer.send(a, callOf(a)), RpcRequestError);
    assert.deepEqual(await journal.txsOf(a), [], "the write's refused bytes are forgotten");
    const [filler] = await journal.fillersAt(5);
    assert.ok(filler);
    const parsed = parseTransaction(filler.raw);
    assert.deepEqual(
      [parsed.nonce, parsed.to && getAddress(parsed.to), parsed.value ?? 0n, parsed.data ?? "0x", parsed.gas],
      [5, account.address, 0n, "0x", 21_000n],
    );
    assert.equal(await recoverTransactionAddress({ serializedTransaction: filler.raw as never }), account.address);
    assert.equal(node.received.at(-1), filler.raw, "and broadcast");
    assert.ok(fillerJournalledAtBroadcast, "journalled before its broadcast");

    node.onSend = undefined;
    const b = await newWrite("b");
    assert.equal((await relayer.send(b, callOf(b))).nonce, 6, "nonce 5 is the filler's");
  });

  it("retries a refused send once with a re-read nonce (another sender made the remembered one stale)", async () => {
    node.pending = 5;
    const a = await newWrite("a");
    await relayer.send(a, callOf(a));
    // Someone else sent nonces 6 and 7 from the same account.
    node.pending = 8;
    let refusals = 0;
    node.onSend = () => {
      if (refusals++ === 0) throw viemRefusal("nonce too low: next nonce 8, tx nonce 6");
    };
    const b = await newWrite("b");
    const tx = await relayer.send(b, callOf(b));
    assert.equal(tx.nonce, 8);
    assert.deepEqual(
      (await journal.txsOf(b)).map((row) => row.nonce),
      [8],
    );
  });

  it("re-reads the chain's nonce after a 'nonce too low' refusal", async () => {
    node.pending = 5;
    const a = await newWrite("a");
    node.onSend = () => {
      throw new Error("nonce too low: next nonce 8, tx nonce 5");
    };
    await assert.rejects(relayer.send(a, callOf(a)), /nonce too low/);
    assert.deepEqual(await journal.txsOf(a), []);
    node.onSend = undefined;
    node.pending = 8;
    assert.equal((await relayer.send(a, callOf(a))).nonce, 8);
  });

  // viem reports most node refusals (-32000, -32603, -32003) as RpcError subclasses such as
  // InvalidInputRpcError, not RpcRequestError. Fees below the block's base fee are worth one more
  // try with fresh ones, at the same nonce.
  it("re-signs at the same nonce with higher fees when the node refuses the fees (as viem reports it)", async () => {
    node.pending = 5;
    const a = await newWrite("a");
    let refusals = 0;
    node.onSend = () => {
      if (refusals++ === 0) throw viemRefusal("max fee per gas less than block base fee");
    };
    const tx = await relayer.send(a, callOf(a));
    assert.equal(tx.nonce, 5);
    const [first, second] = node.received.map((raw) => parseTransaction(raw));
    assert.equal(first!.nonce, 5);
    assert.ok(second!.maxFeePerGas! * 1000n >= first!.maxFeePerGas! * 1125n, `maxFeePerGas ${second!.maxFeePerGas}`);
    assert.deepEqual(await journal.txsOf(a), [tx], "the refused version's row is dropped");
  });

  it("fills the nonce when the node refuses the fees every time, and the next send goes on after it", async () => {
    node.pending = 5;
    const a = await newWrite("a");
    node.onSend = () => {
      throw viemRefusal("max fee per gas less than block base fee");
    };
    await assert.rejects(relayer.send(a, callOf(a)), InvalidInputRpcError);
    assert.deepEqual(await journal.txsOf(a), []);
    assert.deepEqual(
      node.received.slice(0, 3).map((raw) => [nonceOf(raw), hexToString(parseTransaction(raw).data!)]),
      [
        [5, "a"],
        [5, "a"],
        [5, "a"],
      ],
      "signed twice more before giving up",
    );
    assert.ok((await journal.fillersAt(5)).length > 0, "a filler holds nonce 5 (the next repair sends it again)");
    node.onSend = undefined;
    assert.equal((await relayer.send(a, callOf(a))).nonce, 6);
  });

  for (const [name, lost] of [
    ["a timeout", () => new TimeoutError({ body: {}, url: "http://node.test" })],
    ["a lost connection", () => new HttpRequestError({ url: "http://node.test", details: "ECONNRESET" })],
  ] as const) {
    it(`keeps the row after ${name} on broadcast, does not reuse its nonce, and mined() rebroadcasts it`, async () => {
      node.pending = 2;
      const a = await newWrite("a");
      node.onSend = () => {
        throw lost();
      };
      const tx = await relayer.send(a, callOf(a));
      assert.deepEqual(await journal.txsOf(a), [tx]);
      node.onSend = undefined;

      const b = await newWrite("b");
      assert.equal((await relayer.send(b, callOf(b))).nonce, 3, "the node may hold nonce 2");

      node.received.length = 0;
      await assert.rejects(relayer.mined(a, { timeoutMs: 0, nudge: true }), TxPendingError);
      assert.deepEqual(node.received, [tx.raw], "the same bytes again");
      node.mined.add(tx.hash);
      assert.equal((await relayer.mined(a, { timeoutMs: 0 })).transactionHash, tx.hash);
    });
  }

  it("keeps the row when the node mined the transaction yet answered an error (Hardhat automine revert)", async () => {
    const a = await newWrite("a");
    node.onSend = (raw) => {
      node.mined.add(keccak256(raw));
      throw new InternalRpcError(new Error("execution reverted"));
    };
    const tx = await relayer.send(a, callOf(a));
    assert.deepEqual(await journal.txsOf(a), [tx]);
    node.onSend = undefined;
    assert.equal((await relayer.send(a, callOf(a))).nonce, tx.nonce + 1);
  });

  it("takes a node's 'already known' as a successful broadcast", async () => {
    const a = await newWrite("a");
    node.onSend = () => {
      throw rpcRefusal("already known");
    };
    const tx = await relayer.send(a, callOf(a));
    assert.deepEqual(await journal.txsOf(a), [tx]);
  });
});

describe("Relayer.mined", () => {
  it("throws for a write without a transaction", async () => {
    const a = await newWrite("a");
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), /has no transaction/);
  });

  it("polls until the transaction is mined and returns its receipt", async () => {
    const a = await newWrite("a");
    const tx = await relayer.send(a, callOf(a));
    let looks = 0;
    node.onReceipt = (hash) => {
      if (++looks === 3) node.mined.add(hash);
    };
    const receipt = await relayer.mined(a, { timeoutMs: 10_000 });
    assert.equal(receipt.transactionHash, tx.hash);
    assert.equal(looks, 3);
  });

  it("takes the receipt asked for with the broadcast (a node that mines on receipt), without another look", async () => {
    const a = await newWrite("a");
    node.onSend = (raw) => void node.mined.add(keccak256(raw));
    const tx = await relayer.send(a, callOf(a));
    let looks = 0;
    node.onReceipt = () => void looks++;
    assert.equal((await relayer.mined(a, { timeoutMs: 0, sent: tx })).transactionHash, tx.hash);
    assert.equal(looks, 0);
  });

  it("with the sent transaction but no receipt yet, looks it up (without reading the journal)", async () => {
    const a = await newWrite("a");
    const tx = await relayer.send(a, callOf(a));
    let looks = 0;
    node.onReceipt = (hash) => {
      if (++looks === 2) node.mined.add(hash);
    };
    assert.equal((await relayer.mined(a, { timeoutMs: 10_000, sent: tx })).transactionHash, tx.hash);
    assert.equal(looks, 2);
  });

  it("throws TxPendingError with the hash once the (injected) clock passes the timeout", async () => {
    const a = await newWrite("a");
    const tx = await relayer.send(a, callOf(a));
    let looks = 0;
    node.onReceipt = () => {
      looks++;
      clock += 10;
    };
    await assert.rejects(relayer.mined(a, { timeoutMs: 30 }), (error: Error) => {
      assert.ok(error instanceof TxPendingError);
      assert.equal(error.hash, tx.hash);
      return true;
    });
    assert.equal(looks, 3, "looked until the clock (moved 10 ms by each look) reached the deadline");
    assert.equal((await journal.txsOf(a)).length, 1, "not stuck long enough to be replaced");
  });

  it("timeoutMs 0 takes one look", async () => {
    const a = await newWrite("a");
    await relayer.send(a, callOf(a));
    let looks = 0;
    node.onReceipt = () => void looks++;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);
    assert.equal(looks, 1);
  });

  it("replaces a stuck transaction with the same nonce and fees raised by at least 12.5%", async () => {
    node.pending = 4;
    node.latest = 4;
    const a = await newWrite("a");
    const stuck = await relayer.send(a, callOf(a));
    clock += REPLACE_AFTER_MS;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);

    const txs = await journal.txsOf(a);
    assert.equal(txs.length, 2);
    assert.deepEqual(txs[0], stuck);
    const replacement = txs[1];
    assert.equal(node.received.at(-1), replacement.raw, "the replacement was broadcast");
    assert.equal(replacement.nonce, 4);
    assert.equal(replacement.sentAt, clock);
    const before = parseTransaction(stuck.raw);
    const after = parseTransaction(replacement.raw);
    assert.equal(after.nonce, 4);
    assert.ok(after.maxFeePerGas! * 1000n >= before.maxFeePerGas! * 1125n, `maxFeePerGas ${after.maxFeePerGas}`);
    assert.ok(
      after.maxPriorityFeePerGas! * 1000n >= before.maxPriorityFeePerGas! * 1125n,
      `maxPriorityFeePerGas ${after.maxPriorityFeePerGas}`,
    );
    assert.deepEqual(
      [after.to, after.data, after.value, after.gas],
      [before.to, before.data, before.value, before.gas],
    );
    assert.equal(await recoverTransactionAddress({ serializedTransaction: replacement.raw as never }), account.address);

    // Whichever version is mined counts.
    node.mined.add(stuck.hash);
    assert.equal((await relayer.mined(a, { timeoutMs: 0 })).transactionHash, stuck.hash);
    node.mined.clear();
    node.mined.add(replacement.hash);
    assert.equal((await relayer.mined(a, { timeoutMs: 0 })).transactionHash, replacement.hash);
  });

  it("replaces at the node's current fees when they rose beyond 12.5%", async () => {
    const a = await newWrite("a");
    await relayer.send(a, callOf(a));
    node.fees = {
      maxFeePerGas: 3n * node.fees.maxFeePerGas,
      maxPriorityFeePerGas: 3n * node.fees.maxPriorityFeePerGas,
    };
    clock += REPLACE_AFTER_MS;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);
    const after = parseTransaction((await journal.txsOf(a))[1].raw);
    assert.equal(after.maxFeePerGas, node.fees.maxFeePerGas);
    assert.equal(after.maxPriorityFeePerGas, node.fees.maxPriorityFeePerGas);
  });

  it("does not replace once the chain confirmed the nonce (another version is mined)", async () => {
    node.pending = 4;
    const a = await newWrite("a");
    await relayer.send(a, callOf(a));
    node.latest = 5;
    clock += REPLACE_AFTER_MS;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);
    assert.equal((await journal.txsOf(a)).length, 1);
  });

  it("keeps polling when the node refuses the replacement (RpcRequestError), dropping its row", async () => {
    const a = await newWrite("a");
    const stuck = await relayer.send(a, callOf(a));
    node.onSend = () => {
      throw rpcRefusal("replacement transaction underpriced");
    };
    clock += REPLACE_AFTER_MS;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);
    assert.deepEqual(await journal.txsOf(a), [stuck]);
  });

  // geth's "replacement transaction underpriced" arrives as InvalidInputRpcError: the old
  // version stays in the pool, so the write keeps waiting for it.
  it("keeps polling when the node refuses the replacement as viem actually reports it", async () => {
    const a = await newWrite("a");
    await relayer.send(a, callOf(a));
    node.onSend = () => {
      throw viemRefusal("replacement transaction underpriced");
    };
    clock += REPLACE_AFTER_MS;
    await assert.rejects(relayer.mined(a, { timeoutMs: 0 }), TxPendingError);
  });

  it("rebroadcasts the latest version once half of replaceAfterMs passes without a receipt", async () => {
    const a = await newWrite("a");
    const tx = await relayer.send(a, callOf(a));
    node.received.length = 0;
    let looks = 0;
    let receivedAt49 = -1;
    node.onReceipt = (hash) => {
      looks++;
      if (looks === 2) clock += REPLACE_AFTER_MS / 2 - 1;
      if (looks === 3) {
        receivedAt49 = node.received.length;
        clock += 1;
      }
      if (looks === 4) node.mined.add(hash);
    };
    assert.equal((await relayer.mined(a, { timeoutMs: 10_000 })).transactionHash, tx.hash);
    assert.equal(receivedAt49, 0, "nothing rebroadcast before half of replaceAfterMs");
    assert.deepEqual(node.received, [tx.raw], "the same bytes, once");
    assert.equal((await journal.txsOf(a)).length, 1, "and not replaced");
  });
});

describe("Relayer private sends", () => {
  it("broadcasts a private write, its replacement and rebroadcasts only through the private client", async () => {
    const privateNode = new FakeNode();
    const privately = relayerWith({ privateClient: privateNode.client });
    const open = await newWrite("public");
    const hidden = await newWrite("private");
    privately.sendPrivately(hidden);
    await privately.send(open, callOf(open));
    const sent = await privately.send(hidden, callOf(hidden));
    clock += REPLACE_AFTER_MS;
    await assert.rejects(privately.mined(hidden, { timeoutMs: 0 }), TxPendingError);
    assert.deepEqual(
      node.received.map((raw) => hexToString(parseTransaction(raw).data!)),
      ["public"],
    );
    const versions = privateNode.received.map((raw) => [hexToString(parseTransaction(raw).data!), nonceOf(raw)]);
    assert.ok(versions.length >= 2);
    assert.deepEqual(
      versions,
      versions.map(() => ["private", sent.nonce]),
      "the transaction, its rebroadcast (the public node does not count it pending) and its replacement went to the private client only",
    );
    assert.deepEqual(
      (await journal.txsOf(hidden)).map((tx) => tx.raw).slice(-1),
      privateNode.received.slice(-1),
      "the replacement",
    );
  });

  it("refuses a private send when no private client is configured", () => {
    assert.throws(() => relayer.sendPrivately("x"), UnavailableError);
  });
});

describe("Relayer with a batching broadcast client", () => {
  /**
   * A node answering in the order calls arrive, as it does a JSON-RPC batch's: bytes are mined as
   * they are received (automine), so a receipt asked after them in the same batch is there.
   */
  function batchingNode() {
    const calls: string[] = [];
    const mined = new Set<Hex>();
    const client = {
      sendRawTransaction: ({ serializedTransaction }: { serializedTransaction: Hex }) => {
        calls.push(`send ${nonceOf(serializedTransaction)}`);
        const hash = keccak256(serializedTransaction);
        mined.add(hash);
        return Promise.resolve(hash);
      },
      getTransactionReceipt: ({ hash }: { hash: Hex }) => {
        calls.push(`receipt ${hash}`);
        return mined.has(hash)
          ? Promise.resolve({ transactionHash: hash, status: "success" } as TransactionReceipt)
          : Promise.reject(new TransactionReceiptNotFoundError({ hash }));
      },
    } as unknown as PublicClient;
    return { calls, client };
  }

  it("broadcasts concurrent sends in nonce order, asks each receipt after its bytes, and mined() takes it", async () => {
    const batching = batchingNode();
    const batched = relayerWith({ broadcastClient: batching.client });
    let slowLooks = 0;
    node.onReceipt = () => void slowLooks++;
    const ids = await Promise.all(["a", "b", "c", "d", "e", "f"].map(newWrite));
    const txs = await Promise.all(ids.map((id) => batched.send(id, callOf(id))));

    const sends = batching.calls.filter((c) => c.startsWith("send ")).map((c) => Number(c.slice(5)));
    assert.deepEqual(
      sends,
      txs.map((t) => t.nonce).sort((x, y) => x - y),
      "every transaction broadcast once, in nonce order",
    );
    for (const tx of txs) {
      const sentAt = batching.calls.indexOf(`send ${tx.nonce}`);
      const askedAt = batching.calls.indexOf(`receipt ${tx.hash}`);
      assert.ok(askedAt > sentAt, `the receipt of nonce ${tx.nonce} was asked after its bytes`);
      assert.equal((await batched.mined(tx.writeId, { timeoutMs: 0, sent: tx })).transactionHash, tx.hash);
    }
    assert.equal(node.received.length, 0, "nothing went through the unbatched client");
    assert.equal(slowLooks, 0, "no receipt was looked up again");
  });
});
