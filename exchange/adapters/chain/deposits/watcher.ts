import type { Address, PublicClient } from "viem";
import {
  applyBlock,
  type ChainTransfer,
  type ConfirmationEvent,
  type ConfirmationState,
  emptyConfirmationState,
  headOf,
  rewind,
} from "../../../core/deposits/index.ts";
import { formatCurrencyUnits } from "../../../core/money/index.ts";
import { DomainError, type Exchange } from "../../../application/index.ts";
import { type Db, readChainCursor, writeChainCursor } from "../../store/index.ts";
import { depositTokens, nativeCurrency } from "../assets.ts";
import type { ChainGatewayConfig } from "../config.ts";
import type { DepositAddresses } from "../deposit-addresses.ts";
import { ChainReader, ReorgDuringRead } from "./chain-reader.ts";

// The deposit watcher: follows the joined chain block by block, credits each transfer to a
// deposit address once it is `confirmations` deep (exchange/core/deposits decides which and when)
// and keeps the ones not deep yet as pending, with their confirmation count. A credit is the
// exchange's ordinary deposit with the id `chain:<chainId>:<txHash>:<logIndex>`, so a transfer is
// credited once whatever the watcher sees twice (a restart rescans the last blocks, a reorg moves
// a transaction). The cursor (the last block applied) is written after the credits below it
// committed; a restart resumes `confirmations - 1` blocks before it to find the pending ones
// again. A node that fails or hangs (every call has a timeout) is retried with backoff: the
// exchange goes on serving, and GET /api/deposits shows what was pending when the node left.

export interface DepositWatcherOptions {
  readonly exchange: Exchange;
  readonly db: Db;
  readonly config: ChainGatewayConfig;
  readonly addresses: DepositAddresses;
  /** The gateway's client of the node (chainClient: batched, every call bounded). */
  readonly client: PublicClient;
  readonly log: (message: string) => void;
  /** Most blocks read in one call (a catch-up after downtime goes this many at a time). */
  readonly maxBlocksPerRead?: number;
  /** Block hashes kept for finding a reorg's common ancestor (deeper reorgs are reported). */
  readonly window?: number;
  readonly backoffMs?: { readonly min: number; readonly max: number };
  readonly nowMs?: () => number;
}

export interface PendingDepositView {
  readonly id: string;
  readonly userId: string;
  readonly currency: string;
  readonly amount: bigint;
  readonly txHash: string;
  readonly blockNumber: number;
  /** Blocks deep now, its own counted (at most required - 1 while pending). */
  readonly confirmations: number;
  readonly requiredConfirmations: number;
  /** When the watcher first saw it (epoch ms). */
  readonly seenAt: number;
}

export interface WatcherStatus {
  /** The chain head last read, or undefined before the first read. */
  readonly chainHead: number | undefined;
  /** The last block applied. */
  readonly applied: number | undefined;
  /** false after a failed read until a read succeeds again. */
  readonly nodeUp: boolean;
  readonly credited: number;
  /** Credits whose block a reorg deeper than the confirmations removed: an operator reviews them. */
  readonly reorgedAfterCredit: readonly string[];
}

export const DEPOSIT_WATCHER_DEFAULTS = { maxBlocksPerRead: 50, window: 128, backoffMs: { min: 250, max: 10_000 } };

export class DepositWatcher {
  private readonly options: DepositWatcherOptions;
  private readonly reader: ChainReader;
  private readonly nowMs: () => number;
  private state: ConfirmationState = emptyConfirmationState();
  private startFrom = 0;
  private chainHead: number | undefined;
  private nodeUp = true;
  private credited = 0;
  private readonly reorgedAfterCredit: string[] = [];
  private readonly seenAt = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private readonly creditListeners = new Set<(address: string) => void>();
  private closed = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private lastError = "";
  private initialised = false;
  private idPrefix: string | undefined;

  constructor(options: DepositWatcherOptions) {
    this.options = options;
    this.reader = new ChainReader(options.client);
    this.nowMs = options.nowMs ?? Date.now;
  }

  /** `chain:<chainId>:<genesis hash, 8 hex>:` once the node answered. */
  get depositIdPrefix(): string | undefined {
    return this.idPrefix;
  }

  /** Starts following the chain (the loop never throws; the node may be away). */
  start(): void {
    this.loop = this.run();
  }

  /**
   * Where to begin, once the node answers: `confirmations - 1` blocks below the cursor (to find
   * the pending deposits again), or the deployment's first block when there is no cursor or it
   * is not on this chain any more (a local chain started afresh, or a reorg under it). Deposit
   * ids carry the genesis hash, so a fresh chain's transactions are never taken for old ones.
   */
  private async initialise(): Promise<void> {
    const { db, config, log } = this.options;
    const genesis = await this.reader.hashAt(0);
    this.idPrefix = `chain:${config.chainId}:${genesis.slice(0, 10)}:`;
    const cursor = await readChainCursor(db, config.chainId);
    const first = config.deployment.startBlock;
    let from = first;
    if (cursor !== undefined) {
      const head = await this.reader.head();
      const same = cursor.blockNumber <= head && (await this.reader.hashAt(cursor.blockNumber)) === cursor.blockHash;
      if (same) from = Math.max(first, cursor.blockNumber - config.confirmations + 1);
      else
        log(
          `exchange: deposit watcher: block ${cursor.blockNumber} is not on this chain any more; rescanning from ${first}`,
        );
    }
    this.startFrom = from;
    this.initialised = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.loop;
  }

  /** Called after each pass that changed something (tests and streams wait on it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called with the deposit address of each credit (the sweeper's work list). */
  onCredit(listener: (address: string) => void): void {
    this.creditListeners.add(listener);
  }

  status(): WatcherStatus {
    return {
      chainHead: this.chainHead,
      applied: headOf(this.state),
      nodeUp: this.nodeUp,
      credited: this.credited,
      reorgedAfterCredit: [...this.reorgedAfterCredit],
    };
  }

  /** A user's deposits seen on-chain and not deep enough yet, newest first. */
  pendingOf(userId: string): PendingDepositView[] {
    const { addresses, config, exchange } = this.options;
    const tokens = depositTokens(exchange.reference, config.deployment);
    const native = nativeCurrency(exchange.reference);
    const head = this.chainHead ?? headOf(this.state) ?? 0;
    const views: PendingDepositView[] = [];
    for (const deposit of this.state.pending.values()) {
      const { transfer } = deposit;
      if (addresses.userOf(transfer.to) !== userId) continue;
      const currency = transfer.asset === "native" ? native : tokens.get(transfer.asset as Address);
      if (currency === undefined) continue;
      views.push({
        id: `${this.idPrefix}${deposit.key}`,
        userId,
        currency,
        amount: transfer.amount,
        txHash: transfer.txHash,
        blockNumber: deposit.blockNumber,
        confirmations: Math.min(Math.max(head - deposit.blockNumber + 1, 1), config.confirmations - 1),
        requiredConfirmations: config.confirmations,
        seenAt: this.seenAt.get(deposit.key) ?? this.nowMs(),
      });
    }
    return views.sort((a, b) => b.blockNumber - a.blockNumber || b.id.localeCompare(a.id));
  }

  private async run(): Promise<void> {
    const { min, max } = this.options.backoffMs ?? DEPOSIT_WATCHER_DEFAULTS.backoffMs;
    let delay = min;
    while (!this.closed) {
      try {
        const caughtUp = await this.pass();
        if (!this.nodeUp) this.options.log("exchange: deposit watcher: the chain node answers again");
        this.nodeUp = true;
        this.lastError = "";
        delay = min;
        if (caughtUp) await this.pause(this.options.config.pollMs);
      } catch (error) {
        if (error instanceof ReorgDuringRead) continue;
        this.nodeUp = false;
        const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
        if (message !== this.lastError)
          this.options.log(`exchange: deposit watcher: ${message}; retrying with backoff`);
        this.lastError = message;
        await this.pause(delay);
        delay = Math.min(delay * 2, max);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Reads and applies the next blocks; true when it reached the head. */
  private async pass(): Promise<boolean> {
    const { exchange, addresses, config } = this.options;
    // Users created since the last pass get their addresses (deriving one is two hashes).
    if (!this.initialised) await this.initialise();
    addresses.addUsers(exchange);
    const head = await this.reader.head();
    this.chainHead = head;
    const next = (headOf(this.state) ?? this.startFrom - 1) + 1;
    if (next > head) return true;
    const to = Math.min(head, next + (this.options.maxBlocksPerRead ?? DEPOSIT_WATCHER_DEFAULTS.maxBlocksPerRead) - 1);
    const tokens = depositTokens(exchange.reference, config.deployment);
    const blocks = await this.reader.read({
      from: next,
      to,
      tokens: [...tokens.keys()],
      native: nativeCurrency(exchange.reference) !== undefined,
      userOf: (address) => addresses.userOf(address),
    });
    let applied: { number: number; hash: string } | undefined;
    try {
      for (const block of blocks) {
        const result = applyBlock(this.state, block, config.confirmations, this.options.window);
        if (!result.ok) {
          await this.reorganise();
          return false;
        }
        // Credits first: a credit that fails (the exchange's database away) leaves the block to
        // be applied again on the next pass; the ones that went through are then duplicates.
        await this.act(result.events);
        this.state = result.state;
        applied = block;
      }
    } finally {
      if (applied)
        await writeChainCursor(
          this.options.db,
          config.chainId,
          { blockNumber: applied.number, blockHash: applied.hash },
          this.nowMs(),
        );
      this.changed();
    }
    return to === head;
  }

  /** Finds the newest block both we and the node hold, and rewinds to it. */
  private async reorganise(): Promise<void> {
    const { config, log } = this.options;
    const held = [...this.state.blocks.keys()].sort((a, b) => b - a);
    let keep = (held.at(-1) ?? this.startFrom) - 1;
    for (const n of held) {
      if ((await this.reader.hashAt(n)) === this.state.blocks.get(n)) {
        keep = n;
        break;
      }
    }
    if (keep < (held.at(-1) ?? 0))
      log(`exchange: deposit watcher: a reorganisation deeper than the ${held.length} blocks held; rescanning`);
    const { state, events } = rewind(this.state, keep);
    this.state = state;
    await this.act(events);
    // A restart must not resume above the fork: the cursor goes back with the blocks.
    if (keep >= config.deployment.startBlock)
      await writeChainCursor(
        this.options.db,
        config.chainId,
        { blockNumber: keep, blockHash: state.blocks.get(keep) ?? "" },
        this.nowMs(),
      );
    log(`exchange: deposit watcher: chain reorganised above block ${keep}`);
  }

  private async act(events: readonly ConfirmationEvent[]): Promise<void> {
    const { config, log } = this.options;
    const credits: Promise<void>[] = [];
    for (const event of events) {
      if (event.type === "seen") {
        this.seenAt.set(event.deposit.key, this.nowMs());
      } else if (event.type === "dropped") {
        this.seenAt.delete(event.deposit.key);
        log(`exchange: deposit ${event.deposit.key} was reorganised away before its confirmations; not credited`);
      } else if (event.type === "reorged-after-credit") {
        this.reorgedAfterCredit.push(event.key);
        log(
          `exchange: ALERT deposit ${event.key} was credited and then reorganised away (block ${event.blockNumber}, deeper than DEPOSIT_CONFIRMATIONS=${config.confirmations}); an operator must review it`,
        );
      } else credits.push(this.credit(event.deposit.key, event.deposit.transfer));
    }
    // A block's credits go together: the group committer writes them in one batch. Any that
    // failed for want of the database fails the pass, which applies the block again.
    const failed = (await Promise.allSettled(credits)).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  private async credit(key: string, transfer: ChainTransfer): Promise<void> {
    const { exchange, addresses, config, log } = this.options;
    const userId = addresses.userOf(transfer.to);
    const code =
      transfer.asset === "native"
        ? nativeCurrency(exchange.reference)
        : depositTokens(exchange.reference, config.deployment).get(transfer.asset as Address);
    const currency = code === undefined ? undefined : exchange.reference.currencies.get(code);
    this.seenAt.delete(key);
    if (userId === undefined || currency === undefined) return;
    try {
      await exchange.deposit({
        userId,
        currency: currency.row.code,
        amount: formatCurrencyUnits(transfer.amount, currency.spec),
        reference: transfer.txHash,
        depositId: `${this.idPrefix}${key}`,
      });
      this.credited++;
      for (const listener of this.creditListeners) listener(transfer.to);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === "DUPLICATE_DEPOSIT") return;
      log(
        `exchange: deposit ${key} of ${currency.row.code} to user ${userId} not credited: ${error.code} ${error.message}`,
      );
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
