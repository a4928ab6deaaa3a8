import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { UnavailableError } from "../../../../lib/unavailable.ts";
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import type { Exchange, SendingSwitch, WithdrawalRow } from "../../../application/index.ts";
import {
  type Call,
  type OpenRelayer,
  openRelayer,
  relayerClients,
  TxDroppedError,
  TxPendingError,
  type TxRow,
} from "../../../../relayer/index.ts";
import { span, traceRequest } from "../../../../lib/stage-trace.ts";
import { hasChainAsset, withdrawalAsset } from "../assets.ts";
import type { ChainGatewayConfig } from "../config.ts";
import { balancesOf } from "../balances.ts";
import type { DepositAddresses } from "../deposit-addresses.ts";
import { WithdrawalGuard } from "./guard.ts";

// Sends the exchange's pending withdrawals from the hot wallet through the platform's relayer
// (relayer/README.md): nonces in order, each transaction signed and journalled before its bytes
// leave, stuck ones replaced, gaps filled.
//
// Exactly once. The relayer write of a withdrawal is named by the withdrawal's id. Before sending,
// the sender asks the journal for that write's transactions: when there is one, the withdrawal was
// sent (or is about to be: its bytes were journalled before any broadcast) and is only awaited
// (relayer.mined with nudge, which rebroadcasts it if the node never got it); only when there is
// none is it sent. A crash between any two steps leaves either no journalled transaction (nothing
// reached the chain: send) or one (await it), never a second transaction. One process drives a
// withdrawal at a time (`active`), and the exchange's commands on one withdrawal run one at a time.
// A transaction that is dropped (the node refused it and the relayer filled its nonce) leaves no
// transaction in the journal and nothing on-chain, so it is failed and refunded, as a reverted one.
//
// Every outbound call has a timeout (viem's http timeout on the RPC, the journal's and the
// exchange's database timeouts); a failing step is logged and retried with backoff, never a crash.

/** Test-only (WITHDRAWAL_FAULT_AT): the process SIGKILLs itself at this step of its first withdrawal. */
export type WithdrawalFault = "journalled" | "broadcast" | "sent";

export interface WithdrawalSenderOptions {
  readonly exchange: Exchange;
  readonly config: ChainGatewayConfig;
  readonly log: (message: string) => void;
  /** The chain gateway's client of the node and deposit addresses (built here when not given). */
  readonly client?: PublicClient;
  readonly addresses?: DepositAddresses;
  /** The hot wallet's journal: PGlite in dataDir without databaseUrl, else schema there. */
  readonly journal: {
    readonly databaseUrl?: string;
    readonly dataDir: string;
    readonly schema: string;
    readonly timeoutMs: number;
  };
  /**
   * Withdrawals being sent at once (default 128): from the funds check to `sent` committed. Sent
   * ones wait for their confirmations outside this cap (at most MAX_AWAITING), so a slow
   * confirmation never holds up the next send.
   */
  readonly concurrency?: number;
  /** A transaction not mined after this is replaced with higher fees (default 60 s). */
  readonly replaceAfterMs?: number;
  readonly faultAt?: WithdrawalFault;
  /** Start with sending paused (WITHDRAWALS_PAUSED): the operator resumes it (POST /admin/withdrawal-sending). */
  readonly paused?: boolean;
  /** How the process dies at `faultAt` (default: SIGKILL itself, as the kill test wants). */
  readonly die?: (step: WithdrawalFault) => void;
}

export interface WithdrawalSender {
  /**
   * Sends a transaction of the hot wallet that is not a withdrawal (a sweep) through the same
   * relayer, so the two never contend for a nonce; resolves with its receipt once mined.
   * UnavailableError while the relayer is not open yet.
   */
  sendOther(kind: "sweep", call: Call): Promise<TransactionReceipt>;
  close(): Promise<void>;
}

/** Gas limits: an ERC-20 transfer costs ~35-52k; a native transfer to an account 21k (more to a contract's receive). */
const ERC20_TRANSFER_GAS = 100_000n;
const NATIVE_TRANSFER_GAS = 60_000n;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** Sent withdrawals waiting for their confirmations at once (beyond it, sends wait too). */
const MAX_AWAITING = 1_000;
/** Open withdrawals read per scan of the database. */
const PAGE = 500;
/** Between scans of the database for open withdrawals (commits announce new ones at once). */
const SCAN_MS = 5_000;
/** A pending withdrawal's waiting reason while sending is paused. */
const PAUSED_REASON = "withdrawals are paused by the operator; it is sent once they resume";
/** A withdrawal the hot wallet cannot cover is looked at again after this long. */
const FUNDS_RETRY_MS = 2_000;
/** Most receipts read again in one JSON-RPC batch (providers cap a batch; some at 50-100). */
const CONFIRM_BATCH = 50;

/** The transfer that carries a withdrawal: its call, and the coin ("native" or a token address) and amount leaving the hot wallet. */
interface Transfer {
  readonly call: Call;
  readonly asset: string;
  readonly value: bigint;
}

/** A round's read of one withdrawal: the row as committed, its journalled transactions, and what to send when there are none. */
interface Plan {
  readonly row: WithdrawalRow;
  readonly txs: TxRow[];
  readonly transfer: Transfer | string | undefined;
}

const awaitingApproval = (row: WithdrawalRow) =>
  row.status === "pending" && row.approvalRequired && row.approvedAt === null;

export function startWithdrawalSender(options: WithdrawalSenderOptions): WithdrawalSender {
  const { exchange, config, log } = options;
  const concurrency = options.concurrency ?? 128;
  const client =
    options.client ??
    (createPublicClient({
      transport: http(config.rpcUrl, { timeout: config.rpcTimeoutMs, retryCount: 0 }),
    }) as PublicClient);
  // The receipts read again at their confirmations go together in JSON-RPC batches: a backlog's
  // withdrawals reach their depth in waves (one head read serves all), and one request each put
  // hundreds of small requests on the node while it was mining the next sends.
  const confirmClient =
    options.client ??
    (createPublicClient({
      transport: http(config.rpcUrl, {
        timeout: config.rpcTimeoutMs,
        retryCount: 0,
        batch: { wait: 0, batchSize: CONFIRM_BATCH },
      }),
    }) as PublicClient);
  const guard = new WithdrawalGuard(exchange, config, options.addresses);
  const confirmations = new Map<string, number>();
  // Paused, rounds pick no pending withdrawal (the sent ones are still followed) and commits
  // queue none, so nothing grows while requests pile up; a resume scans for them at once.
  let paused = options.paused ?? false;
  const sendingSwitch: SendingSwitch = {
    get paused() {
      return paused;
    },
    pause() {
      if (paused) return;
      paused = true;
      log("exchange: withdrawal sending paused by the operator");
    },
    resume() {
      if (!paused) return;
      paused = false;
      nextScanAt = 0;
      log("exchange: withdrawal sending resumed by the operator");
      kick();
    },
  };
  exchange.setWithdrawalGate({
    check: (request) => guard.check(request),
    sends: (currency) => hasChainAsset(exchange.reference, config.deployment, currency),
    confirmationsOf: (id) => confirmations.get(id),
    waitingReasonOf: (id) => (paused && !active.has(id) ? PAUSED_REASON : waiting.get(id)),
    sending: sendingSwitch,
  });

  let closed = false;
  // The loop sleeps between rounds; a freed send slot, a new withdrawal or close() wakes it at
  // once, and a wake while a round runs makes the next round start at once.
  let woken = false;
  let wakeLoop: (() => void) | undefined;
  const kick = () => {
    woken = true;
    wakeLoop?.();
  };
  const loopPause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed || woken) {
        woken = false;
        return resolve();
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeLoop = undefined;
        woken = false;
        resolve();
      }
      wakeLoop = done;
    });
  const pause = (ms: number) => (closed ? Promise.resolve() : sleep(ms));
  // Withdrawals waiting for their confirmations read one shared chain head, not one each.
  let headRead: { at: number; head: Promise<bigint> } | undefined;
  const chainHead = () => {
    const t = Date.now();
    if (headRead === undefined || t - headRead.at >= Math.min(config.pollMs, 250))
      headRead = { at: t, head: client.getBlockNumber({ cacheTime: 0 }) };
    return headRead.head;
  };
  let sending = 0;
  let opened: OpenRelayer | undefined;
  const active = new Map<string, Promise<void>>();
  const backoff = new Map<string, { delayMs: number; nextAt: number }>();
  /** Why a pending withdrawal is not sent yet (the hot wallet short of its coin, the node refusing), by id. */
  const waiting = new Map<string, string>();
  /**
   * Withdrawals to look at, in arrival order: pending ones as their commits announce them (the
   * debit, an operator's approval), and what a scan of the database finds (at the start, then
   * every SCAN_MS: sent ones no one awaits after a restart, anything a commit did not announce).
   */
  const queued = new Map<string, WithdrawalRow>();
  let nextScanAt = 0;
  exchange.onCommitted((units) => {
    if (closed) return;
    let fresh = false;
    for (const unit of units)
      for (const row of unit.withdrawals ?? [])
        if (row.status === "pending" && !paused && !awaitingApproval(row) && !active.has(row.id)) {
          queued.set(row.id, row);
          fresh = true;
        }
    if (fresh) kick();
  });
  /**
   * What this process sent and has not seen mined, by withdrawal: a balance read before they
   * are mined still holds them, so the funds check counts them spent (too careful for the ones
   * mined just before the read, never too lax).
   */
  const unmined = new Map<string, { readonly asset: string; readonly value: bigint }>();
  let faultArmed = options.faultAt !== undefined;
  const die =
    options.die ??
    ((step: WithdrawalFault) => {
      log(`exchange: WITHDRAWAL_FAULT_AT=${step}: killing the process (test hook)`);
      process.kill(process.pid, "SIGKILL");
    });
  const fault = (step: WithdrawalFault) => {
    if (faultArmed && options.faultAt === step) {
      faultArmed = false;
      die(step);
    }
  };

  const open = async (): Promise<OpenRelayer | undefined> => {
    for (let delay = BACKOFF_MIN_MS; !closed; delay = Math.min(delay * 2, BACKOFF_MAX_MS)) {
      try {
        const genesis = await client.getBlock({ blockNumber: 0n });
        const relayer = await openRelayer({
          clients: relayerClients({ rpcUrl: config.rpcUrl, rpcTimeoutMs: config.rpcTimeoutMs }),
          account: config.hotWallet as Parameters<typeof openRelayer>[0]["account"],
          chainId: config.chainId,
          journal: { ...options.journal, name: "hot wallet journal" },
          genesisHash: genesis.hash,
          receiptTimeoutMs: 10_000,
          replaceAfterMs: options.replaceAfterMs ?? 60_000,
          pollMs: Math.min(config.pollMs, 1_000),
          minBalanceWei: 0n,
          beforeBroadcast: () => fault("journalled"),
        });
        if (relayer.chain === "changed") {
          // Nothing journalled for the old chain can be mined on this one: withdrawals not
          // completed are sent afresh here (the journal no longer holds their transactions).
          log("exchange: the hot wallet's journal knew another chain; starting it afresh");
          await relayer.journal.clear();
        }
        log(`exchange: withdrawals are sent by the hot wallet ${config.hotWallet.address}`);
        return relayer;
      } catch (error) {
        log(`exchange: withdrawal sender not started yet (retrying in ${delay} ms): ${describe(error)}`);
        await pause(delay);
      }
    }
    return undefined;
  };

  /**
   * Drives one withdrawal from where it is to completed or failed; it holds a send slot until
   * `sent`. `plan`: the round's read of it (as committed, its journalled transactions, and what
   * to send when there are none).
   */
  const drive = async (relayer: OpenRelayer, plan: Plan): Promise<void> => {
    sending++;
    let slot = true;
    const release = () => {
      if (!slot) return;
      slot = false;
      sending--;
      kick();
    };
    try {
      await traceRequest("withdrawal", () => driveHolding(relayer, plan, release));
    } finally {
      release();
    }
  };

  const driveHolding = async (relayer: OpenRelayer, plan: Plan, release: () => void): Promise<void> => {
    let { row, txs } = plan;
    let sent: TxRow | undefined;
    if (txs.length === 0) {
      const { transfer } = plan;
      if (transfer === undefined) throw new Error(`withdrawal ${row.id}: no transfer planned`);
      if (typeof transfer === "string") {
        await exchange.markWithdrawalFailed(row.id, transfer);
        log(`exchange: withdrawal ${row.id} failed: ${transfer}`);
        return;
      }
      try {
        sent = await span("send", () =>
          relayer.relayer.send(row.id, transfer.call, {
            newWrite: {
              id: row.id,
              userId: row.userId,
              kind: "withdrawal",
              idempotencyKey: null,
              requestHash: requestHashOf(row),
              feeHeld: false,
              createdAt: Date.now(),
            },
          }),
        );
      } catch (error) {
        // The node refused the bytes: the nonce was filled and nothing was sent; try again later.
        txs = await relayer.journal.txsOf(row.id);
        if (txs.length === 0) throw error;
      }
      unmined.set(row.id, { asset: transfer.asset, value: transfer.value });
      fault("broadcast");
      txs = sent ? [sent] : txs;
    }
    waiting.delete(row.id);
    row = await span("markSent", () => exchange.markWithdrawalSent(row.id, txs[txs.length - 1]!.hash));
    fault("sent");
    release();
    await awaitCompletion(relayer, row, sent);
  };

  const awaitCompletion = async (relayer: OpenRelayer, row: WithdrawalRow, sent?: TxRow) => {
    let nudge = sent === undefined;
    while (!closed) {
      let receipt: TransactionReceipt;
      try {
        receipt = await relayer.relayer.mined(row.id, {
          nudge,
          timeoutMs: Math.max(2_000, config.pollMs * 3),
          ...(sent ? { sent } : {}),
        });
      } catch (error) {
        if (error instanceof TxPendingError) {
          nudge = false;
          sent = undefined;
          confirmations.set(row.id, 0);
          continue;
        }
        if (error instanceof TxDroppedError) {
          unmined.delete(row.id);
          await exchange.markWithdrawalFailed(row.id, `dropped: ${error.message}`, error.hash);
          log(`exchange: withdrawal ${row.id} failed: its transaction was dropped`);
          return finish(relayer, row.id, "failed");
        }
        throw error;
      }
      sent = undefined;
      nudge = false;
      unmined.delete(row.id);
      if (receipt.status !== "success") {
        await exchange.markWithdrawalFailed(row.id, "reverted on-chain", receipt.transactionHash);
        log(`exchange: withdrawal ${row.id} failed: transaction ${receipt.transactionHash} reverted`);
        return finish(relayer, row.id, "failed");
      }
      if (row.txHash !== receipt.transactionHash)
        row = await exchange.markWithdrawalSent(row.id, receipt.transactionHash);
      if (await deepEnough(receipt, row.id)) {
        await exchange.markWithdrawalCompleted(row.id, receipt.transactionHash);
        confirmations.delete(row.id);
        return finish(relayer, row.id, "completed");
      }
      // Reorged away before its confirmations: the relayer rebroadcasts it (same nonce, same bytes).
      nudge = true;
    }
  };

  /** Waits until the receipt's block is `confirmations` deep; false when the receipt vanished (a reorg). */
  const deepEnough = async (receipt: TransactionReceipt, id: string): Promise<boolean> => {
    while (!closed) {
      const head = await chainHead();
      const depth = Number(head - receipt.blockNumber) + 1;
      confirmations.set(id, Math.max(0, depth));
      if (depth >= config.confirmations) {
        const again = await confirmClient
          .getTransactionReceipt({ hash: receipt.transactionHash })
          .catch((error: unknown) => {
            if (error instanceof TransactionReceiptNotFoundError) return undefined;
            throw error;
          });
        return again !== undefined && again.blockHash === receipt.blockHash;
      }
      await pause(config.pollMs);
    }
    throw new Error("closing");
  };

  const finish = async (relayer: OpenRelayer, id: string, outcome: string) => {
    // The journal's write is done (kept for the record; nothing reads an open one of ours).
    await relayer.journal.finish(id, null, outcome).catch(() => {});
  };

  /** What sending `row` takes: the call, and the coin and amount leaving the hot wallet; a string when it cannot be sent. */
  const transferOf = (row: WithdrawalRow): Transfer | string => {
    const asset = withdrawalAsset(exchange.reference, config.deployment, row.currency);
    if (asset === undefined) return `${row.currency} has no asset on chain ${config.chainId}`;
    const to = guard.addressOf(row.address);
    if (to === undefined) return `the address ${row.address} is not one this chain takes`;
    const value = row.amount - row.fee;
    if (asset.kind === "native")
      return { asset: "native", value, call: { to, data: "0x", value, gas: NATIVE_TRANSFER_GAS } };
    return {
      asset: asset.address,
      value,
      call: {
        to: asset.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] }),
        value: 0n,
        gas: ERC20_TRANSFER_GAS,
      },
    };
  };

  /** The hot wallet's balance of each asset, less what this process sent and has not seen mined. */
  const spendable = async (assets: ReadonlySet<string>): Promise<Map<string, bigint>> => {
    const tokens = [...assets].filter((asset) => asset !== "native") as Address[];
    const held = await balancesOf(client, config.hotWallet.address, tokens);
    const left = new Map<string, bigint>([["native", held.native], ...held.tokens]);
    for (const { asset, value } of unmined.values()) {
      const balance = left.get(asset);
      if (balance !== undefined) left.set(asset, balance - value);
    }
    return left;
  };

  const retryLater = (id: string, delayMs: number) => backoff.set(id, { delayMs, nextAt: Date.now() + delayMs });

  /**
   * One round: up to the free send slots of the queued withdrawals, with one read of their rows
   * (as committed: a scan's copy may predate a send that settled it), one of their journalled
   * transactions and one balance read per coin, then each driven on its own.
   */
  const round = async (relayer: OpenRelayer) => {
    let t = Date.now();
    if (t >= nextScanAt) {
      nextScanAt = t + SCAN_MS;
      // Sent ones no one awaits (after a restart) first, then pending ones, each oldest first.
      const rows = [
        ...(await exchange.withdrawalsByStatus(["sent"], PAGE)),
        ...(paused ? [] : await exchange.withdrawalsByStatus(["pending"], PAGE)),
      ];
      for (const row of rows) if (!active.has(row.id) && !awaitingApproval(row)) queued.set(row.id, row);
      t = Date.now();
    }
    const free = Math.min(concurrency - sending, concurrency + MAX_AWAITING - active.size);
    const picked: string[] = [];
    for (const [id, row] of queued) {
      if (picked.length >= free) break;
      if ((backoff.get(id)?.nextAt ?? 0) > t) continue;
      queued.delete(id);
      // Queued before the pause: the scan after the resume finds it again.
      if (paused && row.status === "pending") continue;
      if (!active.has(id)) picked.push(id);
    }
    if (picked.length === 0 || closed) return;
    const [rows, journalled] = await Promise.all([
      exchange.withdrawalsById(picked),
      relayer.journal.txsOfWrites(picked),
    ]);
    const plans: Plan[] = [];
    for (const row of rows) {
      if (row.status === "completed" || row.status === "failed" || awaitingApproval(row) || active.has(row.id))
        continue;
      // Paused while its rows were read: a pending one with a journalled transaction is followed
      // (its bytes may be on-chain), one with none waits for the resume.
      if (paused && row.status === "pending" && (journalled.get(row.id)?.length ?? 0) === 0) continue;
      const txs = journalled.get(row.id) ?? [];
      plans.push({ row, txs, transfer: txs.length === 0 ? transferOf(row) : undefined });
    }
    // A hot wallet short of the coin would make the transfer revert (and the withdrawal fail):
    // the withdrawal waits instead, until a sweep or a top-up covers it.
    const needed = new Set(plans.flatMap((plan) => (typeof plan.transfer === "object" ? [plan.transfer.asset] : [])));
    const left = needed.size > 0 ? await spendable(needed) : new Map<string, bigint>();
    for (const plan of plans) {
      const { row, transfer } = plan;
      if (typeof transfer === "object") {
        const have = left.get(transfer.asset)!;
        if (have < transfer.value) {
          const reason = `the hot wallet holds ${have < 0n ? 0n : have} of the ${transfer.value} base units of ${row.currency} to send; waiting for a sweep or a top-up`;
          if (waiting.get(row.id) !== reason) log(`exchange: withdrawal ${row.id} waits: ${reason}`);
          waiting.set(row.id, reason);
          retryLater(row.id, FUNDS_RETRY_MS);
          queued.set(row.id, row);
          continue;
        }
        left.set(transfer.asset, have - transfer.value);
      }
      const run = drive(relayer, plan)
        .then(() => {
          backoff.delete(row.id);
          waiting.delete(row.id);
        })
        .catch((error: unknown) => {
          const delayMs = Math.min((backoff.get(row.id)?.delayMs ?? BACKOFF_MIN_MS / 2) * 2, BACKOFF_MAX_MS);
          retryLater(row.id, delayMs);
          if (closed) return;
          const reason = describe(error);
          if (row.status === "pending") waiting.set(row.id, reason);
          log(`exchange: withdrawal ${row.id} (retrying in ${delayMs} ms): ${reason}`);
        })
        .finally(() => {
          active.delete(row.id);
          // Retried from the queue (a commit announces only new ones); settled ones drop out at the next read.
          if (!closed && backoff.has(row.id)) queued.set(row.id, row);
        });
      active.set(row.id, run);
    }
  };

  const loop = (async () => {
    opened = await open();
    if (opened === undefined) return;
    for (let delay = BACKOFF_MIN_MS; !closed; ) {
      try {
        await round(opened);
        delay = BACKOFF_MIN_MS;
        await loopPause(config.pollMs);
      } catch (error) {
        // The exchange's database away, or a bug reading: log, back off, go on.
        log(`exchange: withdrawal sender (retrying in ${delay} ms): ${describe(error)}`);
        await pause(delay);
        delay = Math.min(delay * 2, BACKOFF_MAX_MS);
      }
    }
  })();

  return {
    sendOther: async (kind, call) => {
      const relayer = opened;
      if (relayer === undefined || closed)
        throw new UnavailableError("relayer", "the hot wallet's relayer is not open yet");
      const id = `${kind}-${randomUUID()}`;
      const sent = await relayer.relayer.send(id, call, {
        newWrite: {
          id,
          userId: null,
          kind,
          idempotencyKey: null,
          requestHash: createHash("sha256").update(`${call.to}\u0000${call.data}`).digest("hex"),
          feeHeld: false,
          createdAt: Date.now(),
        },
      });
      const receipt = await relayer.relayer.mined(id, { sent });
      await relayer.journal.finish(id, null, receipt.status).catch(() => {});
      return receipt;
    },
    close: async () => {
      closed = true;
      kick();
      await loop;
      await Promise.allSettled(active.values());
      await opened?.close();
    },
  };
}

/** What the journal records as the write's request: the withdrawal's destination and amount. */
function requestHashOf(row: WithdrawalRow): string {
  return createHash("sha256")
    .update(`${row.currency}\u0000${row.address.toLowerCase()}\u0000${row.amount - row.fee}`)
    .digest("hex");
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as { shortMessage?: string }).shortMessage ?? error.message;
  return String(error);
}
