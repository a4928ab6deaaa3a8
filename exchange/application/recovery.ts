import { setTimeout as sleep } from "node:timers/promises";
import { createLedger, feeHoldKey, recountSupply, requiredHold, type PairFees } from "../core/ledger/index.ts";
import { FastBook, type TradeEvent } from "../core/matching/index.ts";
import type { Accounts } from "./accounts.ts";
import { CommittedView } from "./committed-view.ts";
import type { Committer, ExchangeStore } from "./ports.ts";
import type { LoadedState } from "./records.ts";
import { ReferenceData, type Pair } from "./reference-data.ts";
import type { Sequencer } from "./sequencer.ts";

// Start-up and recovery: the working state rebuilt from what the database holds, exactly as it
// was; after a failed or hung commit, the wait for the database and the same reload; and the
// reconciliation of balances against what came in and went out.

export interface RecoveryOptions {
  readonly sequencer: Sequencer;
  readonly accounts: Accounts;
  /** The unguarded store: recovery reads while the exchange still refuses everyone else. */
  readonly store: ExchangeStore;
  readonly committer: Committer;
  /** Backoff of the probe that waits for the database after a failed commit. */
  readonly recoveryDelayMs?: { readonly min: number; readonly max: number };
  readonly log?: (message: string) => void;
}

export class Recovery {
  private readonly options: RecoveryOptions;
  private readonly reloadListeners: ((store: ExchangeStore) => Promise<void>)[] = [];
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(options: RecoveryOptions) {
    this.options = options;
    options.committer.onFailure((error) => this.lostDatabase(error));
  }

  /** Builds the working state and the committed view from what the database holds. */
  load(state: LoadedState): void {
    const { sequencer: seq, accounts } = this.options;
    seq.reference = new ReferenceData(state.currencies, state.pairs, state.commissions);
    accounts.load(state);
    seq.markets.clear();
    seq.openOrders.clear();
    seq.feeHolds.clear();
    seq.ledger = createLedger();
    seq.orderSeq = state.lastOrderSeq;
    this.restoreLedger(state);
    for (const pair of seq.reference.pairs.values()) this.openMarket(pair, state.lastTradeSeq.get(pair.row.code) ?? 0);
    this.restoreHolds(state);
    seq.committed = CommittedView.of(state, seq.committed);
  }

  /**
   * Runs after every reload, before writes are taken again (market data reloads its deals), with
   * the unguarded store: the exchange's own still refuses while it is unavailable.
   */
  onReload(listener: (store: ExchangeStore) => Promise<void>): void {
    this.reloadListeners.push(listener);
  }

  /** Stops a running recovery (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  /**
   * A commit failed or hung: the committer already failed every waiting command and refuses new
   * ones. Probe the database with backoff; once it answers, fence off any statement of the old
   * connections, reload everything as start-up does, and take commands again.
   */
  private lostDatabase(error: unknown): void {
    const { store, committer } = this.options;
    const log = this.options.log ?? ((message: string) => console.error(message));
    log(
      `exchange: a commit failed (${(error as Error)?.message ?? error}); refusing writes until the database is back`,
    );
    if (this.running !== null) return;
    const { min, max } = this.options.recoveryDelayMs ?? { min: 100, max: 5_000 };
    this.running = (async () => {
      for (let delay = min; !this.closed; delay = Math.min(delay * 2, max)) {
        await sleep(delay);
        if (this.closed) return;
        try {
          await store.fence();
          this.load(await store.loadState());
          for (const listener of this.reloadListeners) await listener(store);
          committer.resume();
          log("exchange: the database is back; state reloaded, taking commands again");
          return;
        } catch (failure) {
          log(
            `exchange: the database is still unavailable (${(failure as Error)?.message ?? failure}); retrying in ${Math.min(delay * 2, max)} ms`,
          );
        }
      }
    })().finally(() => (this.running = null));
  }

  /** Adds the pair's book (empty until orders are put back) to the working state. */
  openMarket(pair: Pair, lastTradeSeq: number): void {
    const { sequencer: seq, accounts } = this.options;
    const fees = (trade: TradeEvent): PairFees => {
      const maker = seq.reference.pairFees(pair, accounts.levelOf(trade.makerUserId));
      const taker = seq.reference.pairFees(pair, accounts.levelOf(trade.takerUserId));
      return { maker: maker.maker, taker: taker.taker };
    };
    seq.markets.set(pair.row.code, { pair: pair.spec, pairRef: pair, fees, book: new FastBook({ lastTradeSeq }) });
  }

  private restoreLedger(state: LoadedState): void {
    const ledger = this.options.sequencer.ledger;
    const balances = ledger.balances;
    for (const row of state.balances) {
      let own = balances.get(row.userId);
      if (own === undefined) {
        own = new Map();
        balances.set(row.userId, own);
      }
      own.set(row.currency, { available: row.available, locked: row.locked });
    }
    for (const row of state.fees) ledger.fees.set(row.currency, row.amount);
    for (const row of state.burned) ledger.burned.set(row.currency, row.amount);
    recountSupply(ledger);
  }

  /**
   * Puts every resting order back in its original arrival order, so time priority is kept, and
   * its hold back from what its remainder needs; puts every open fee hold back; then checks the
   * holds add up to the stored locked balances, which proves the stored state is consistent
   * before trading resumes.
   */
  private restoreHolds(state: LoadedState): void {
    const seq = this.options.sequencer;
    const lockedByAccount = new Map<string, bigint>();
    const lock = (userId: string, currency: string, amount: bigint) => {
      const key = `${userId}\u0000${currency}`;
      lockedByAccount.set(key, (lockedByAccount.get(key) ?? 0n) + amount);
      // An account with holds but no balance row is caught below as locked 0.
      if (!seq.ledger.balances.get(userId)?.has(currency)) lockedWithoutBalance.push({ userId, currency });
    };
    const lockedWithoutBalance: { userId: string; currency: string }[] = [];
    for (const row of state.openFeeHolds) {
      const key = feeHoldKey(row.id);
      seq.ledger.holds.set(key, { orderId: key, userId: row.userId, currency: row.currency, amount: row.amount });
      lock(row.userId, row.currency, row.amount);
      seq.feeHolds.set(row.id, row);
    }
    for (const row of state.openOrders) {
      const market = seq.market(row.pairCode);
      const events = market.book.execute({
        kind: "place",
        orderId: row.id,
        userId: row.userId,
        isBid: row.isBid,
        type: "limit",
        price: row.priceTicks!,
        amount: row.remainingLots,
        timeInForce: "GTC",
        postOnly: true,
        selfTradePrevention: "cancel_taker",
        timestamp: 0,
      });
      const done = events.at(-1);
      if (done?.type !== "done" || done.status !== "resting")
        throw new Error(`restoring order ${row.id} did not rest: ${JSON.stringify(events)}`);
      const hold = requiredHold(market.pair, {
        orderId: row.id,
        userId: row.userId,
        isBid: row.isBid,
        type: "limit",
        price: row.priceTicks!,
        amount: row.remainingLots,
      });
      if (!hold.ok) throw new Error(`restoring order ${row.id}: ${hold.message}`);
      seq.ledger.holds.set(row.id, {
        orderId: row.id,
        userId: row.userId,
        currency: hold.value.currency,
        amount: hold.value.amount,
      });
      lock(row.userId, hold.value.currency, hold.value.amount);
      seq.openOrders.set(row.id, row);
    }
    for (const [userId, own] of seq.ledger.balances) {
      for (const [currency, balance] of own) {
        const held = lockedByAccount.get(`${userId}\u0000${currency}`) ?? 0n;
        if (held !== balance.locked)
          throw new Error(
            `stored state is inconsistent: ${userId} has ${balance.locked} ${currency} locked but open orders and fee holds hold ${held}`,
          );
      }
    }
    const orphan = lockedWithoutBalance[0];
    if (orphan !== undefined)
      throw new Error(
        `stored state is inconsistent: ${orphan.userId} has no ${orphan.currency} balance but open orders or fee holds hold some`,
      );
  }
}

export interface CurrencyReconciliation {
  readonly currency: string;
  readonly available: bigint;
  readonly locked: bigint;
  readonly fees: bigint;
  /** Settled fee holds: burned on-chain, so out of the exchange like a withdrawal. */
  readonly burned: bigint;
  readonly deposited: bigint;
  readonly withdrawn: bigint;
  readonly balanced: boolean;
}

/**
 * Per currency: what users hold, what the exchange earned, and what came in and went out. The
 * books balance when holdings + fees + burned = deposits - withdrawals sent, for every currency.
 */
export async function reconcile(seq: Sequencer, store: ExchangeStore): Promise<CurrencyReconciliation[]> {
  const { deposited, withdrawn, burned: burnedFlows } = await store.walletFlows();
  // The committed view, not the working ledger: commands in flight are not in the sums above.
  const held = new Map<string, { available: bigint; locked: bigint }>();
  for (const balance of seq.committed.allBalances()) {
    const total = held.get(balance.currency) ?? { available: 0n, locked: 0n };
    held.set(balance.currency, {
      available: total.available + balance.available,
      locked: total.locked + balance.locked,
    });
  }
  return [...seq.reference.currencies.keys()].map((currency) => {
    const { available, locked } = held.get(currency) ?? { available: 0n, locked: 0n };
    const fees = seq.committed.feeTotal(currency);
    const inflow = deposited.get(currency) ?? 0n;
    const outflow = withdrawn.get(currency) ?? 0n;
    const burned = burnedFlows.get(currency) ?? 0n;
    return {
      currency,
      available,
      locked,
      fees,
      burned,
      deposited: inflow,
      withdrawn: outflow,
      balanced: available + locked + fees + burned === inflow - outflow,
    };
  });
}
