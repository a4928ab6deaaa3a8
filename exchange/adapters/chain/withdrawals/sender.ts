import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { UnavailableError } from "../../../../lib/unavailable.ts";
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import type { Exchange, WithdrawalRow } from "../../../application/index.ts";
import {
  type Call,
  type OpenRelayer,
  openRelayer,
  relayerClients,
  TxDroppedError,
  TxPendingError,
  type TxRow,
} from "../../../../relayer/index.ts";
import { hasChainAsset, withdrawalAsset } from "../assets.ts";
import type { ChainGatewayConfig } from "../config.ts";
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
   * Withdrawals being sent at once (default 32): from the funds check to `sent` committed. Sent
   * ones wait for their confirmations outside this cap (at most MAX_AWAITING), so a slow
   * confirmation never holds up the next send.
   */
  readonly concurrency?: number;
  /** A transaction not mined after this is replaced with higher fees (default 60 s). */
  readonly replaceAfterMs?: number;
  readonly faultAt?: WithdrawalFault;
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
/** Open withdrawals read per pass. */
const PAGE = 500;

export function startWithdrawalSender(options: WithdrawalSenderOptions): WithdrawalSender {
  const { exchange, config, log } = options;
  const concurrency = options.concurrency ?? 32;
  const client =
    options.client ??
    (createPublicClient({
      transport: http(config.rpcUrl, { timeout: config.rpcTimeoutMs, retryCount: 0 }),
    }) as PublicClient);
  const guard = new WithdrawalGuard(exchange, config, options.addresses);
  const confirmations = new Map<string, number>();
  exchange.setWithdrawalGate({
    check: (request) => guard.check(request),
    sends: (currency) => hasChainAsset(exchange.reference, config.deployment, currency),
    confirmationsOf: (id) => confirmations.get(id),
  });

  let closed = false;
  // The loop sleeps between passes; a freed send slot or close() wakes it at once.
  let wakeLoop: (() => void) | undefined;
  const kick = () => wakeLoop?.();
  const loopPause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const timer = setTimeout(resolve, ms);
      wakeLoop = () => {
        clearTimeout(timer);
        resolve();
      };
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

  /** Drives one withdrawal from where it is to completed or failed; it holds a send slot until `sent`. */
  const drive = async (relayer: OpenRelayer, start: WithdrawalRow): Promise<void> => {
    sending++;
    let slot = true;
    const release = () => {
      if (!slot) return;
      slot = false;
      sending--;
      kick();
    };
    try {
      await driveHolding(relayer, start, release);
    } finally {
      release();
    }
  };

  const driveHolding = async (relayer: OpenRelayer, start: WithdrawalRow, release: () => void): Promise<void> => {
    let row = await exchange.withdrawal(start.id);
    if (row.status === "completed" || row.status === "failed") return;
    if (row.status === "pending" && row.approvalRequired && row.approvedAt === null) return;
    let txs = await relayer.journal.txsOf(row.id);
    let sent: TxRow | undefined;
    if (txs.length === 0) {
      const call = callOf(row);
      if (typeof call === "string") {
        await exchange.markWithdrawalFailed(row.id, call);
        log(`exchange: withdrawal ${row.id} failed: ${call}`);
        return;
      }
      // A hot wallet short of the coin would make the transfer revert (and the withdrawal fail):
      // the withdrawal waits instead, with backoff, until a sweep or a top-up covers it.
      await requireFunds(row);
      try {
        sent = await relayer.relayer.send(row.id, call, {
          newWrite: {
            id: row.id,
            userId: row.userId,
            kind: "withdrawal",
            idempotencyKey: null,
            requestHash: requestHashOf(row),
            feeHeld: false,
            createdAt: Date.now(),
          },
        });
      } catch (error) {
        // The node refused the bytes: the nonce was filled and nothing was sent; try again later.
        txs = await relayer.journal.txsOf(row.id);
        if (txs.length === 0) throw error;
      }
      fault("broadcast");
      txs = sent ? [sent] : txs;
    }
    row = await exchange.markWithdrawalSent(row.id, txs[txs.length - 1]!.hash);
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
          await exchange.markWithdrawalFailed(row.id, `dropped: ${error.message}`, error.hash);
          log(`exchange: withdrawal ${row.id} failed: its transaction was dropped`);
          return finish(relayer, row.id, "failed");
        }
        throw error;
      }
      sent = undefined;
      nudge = false;
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
        const again = await client.getTransactionReceipt({ hash: receipt.transactionHash }).catch((error: unknown) => {
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

  const requireFunds = async (row: WithdrawalRow) => {
    const asset = withdrawalAsset(exchange.reference, config.deployment, row.currency);
    const owner = config.hotWallet.address;
    const need = row.amount - row.fee;
    const have =
      asset?.kind === "erc20"
        ? await client.readContract({ address: asset.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] })
        : await client.getBalance({ address: owner });
    if (have < need)
      throw new Error(
        `the hot wallet holds ${have} of the ${need} base units of ${row.currency} to send; waiting for a sweep or a top-up`,
      );
  };

  const callOf = (row: WithdrawalRow): Call | string => {
    const asset = withdrawalAsset(exchange.reference, config.deployment, row.currency);
    if (asset === undefined) return `${row.currency} has no asset on chain ${config.chainId}`;
    const to = guard.addressOf(row.address);
    if (to === undefined) return `the address ${row.address} is not one this chain takes`;
    const value = row.amount - row.fee;
    if (asset.kind === "native") return { to, data: "0x", value, gas: NATIVE_TRANSFER_GAS };
    return {
      to: asset.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] }),
      value: 0n,
      gas: ERC20_TRANSFER_GAS,
    };
  };

  const pass = async (relayer: OpenRelayer) => {
    // Pending ones to send, and sent ones no one awaits (after a restart), each oldest first.
    const rows = [
      ...(await exchange.withdrawalsByStatus(["sent"], PAGE)).filter((row) => !active.has(row.id)),
      ...(await exchange.withdrawalsByStatus(["pending"], PAGE)),
    ];
    const t = Date.now();
    for (const row of rows) {
      if (closed || sending >= concurrency || active.size >= concurrency + MAX_AWAITING) break;
      if (active.has(row.id)) continue;
      if (row.status === "pending" && row.approvalRequired && row.approvedAt === null) continue;
      if ((backoff.get(row.id)?.nextAt ?? 0) > t) continue;
      const run = drive(relayer, row)
        .then(() => {
          backoff.delete(row.id);
        })
        .catch((error: unknown) => {
          const delayMs = Math.min((backoff.get(row.id)?.delayMs ?? BACKOFF_MIN_MS / 2) * 2, BACKOFF_MAX_MS);
          backoff.set(row.id, { delayMs, nextAt: Date.now() + delayMs });
          if (!closed) log(`exchange: withdrawal ${row.id} (retrying in ${delayMs} ms): ${describe(error)}`);
        })
        .finally(() => active.delete(row.id));
      active.set(row.id, run);
    }
  };

  const loop = (async () => {
    opened = await open();
    if (opened === undefined) return;
    for (let delay = BACKOFF_MIN_MS; !closed; ) {
      try {
        await pass(opened);
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
          userId: "hot-wallet",
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
