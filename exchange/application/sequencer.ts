import { createLedger, type Entry, type LedgerState } from "../core/ledger/index.ts";
import type { BookEvent } from "../core/matching/index.ts";
import type { PairMarket } from "../core/pair-market/index.ts";
import { DomainError } from "../core/result.ts";
import type { MicrosClock } from "./clock.ts";
import type { CommittedView } from "./committed-view.ts";
import { rowsOfEvents, type Applied } from "./order-rows.ts";
import type { Committer } from "./ports.ts";
import type { DealRow, FeeHoldRow, OrderRow, WriteUnit } from "./records.ts";
import type { Pair, ReferenceData } from "./reference-data.ts";

// The working state and how commands take turns on it. Every command runs synchronously against
// the books and the ledger (JavaScript runs one at a time, so no two commands interleave), then
// waits for the committer to make its rows durable before the caller answers: the database is
// always a prefix of what memory applied, and nothing acknowledged can be lost.
//
// Readers never see that working state: they read the committed view, which moves only when a
// batch has committed.

export interface Market extends PairMarket {
  readonly pairRef: Pair;
}

export interface SequencerOptions {
  readonly committer: Committer;
  readonly nowMs: () => number;
  readonly nowUs: MicrosClock;
  /** See ExchangeOptions.onFatal. */
  readonly onFatal?: (error: unknown) => void;
}

export class Sequencer {
  /** Replaced by a reload; read it at each use rather than keeping it. */
  reference!: ReferenceData;
  /** The working ledger (ahead of the database by the commands waiting for their commit). */
  ledger: LedgerState = createLedger();
  /** What the database holds: every read that a client sees comes from here. */
  committed!: CommittedView;
  readonly markets = new Map<string, Market>();
  /** Resting orders by id. */
  readonly openOrders = new Map<string, OrderRow>();
  /** Fee holds with status held, by id: each has its hold in the working ledger. */
  readonly feeHolds = new Map<string, FeeHoldRow>();
  orderSeq = 0;
  readonly nowMs: () => number;
  readonly nowUs: MicrosClock;
  private readonly committer: Committer;
  private readonly onFatal?: (error: unknown) => void;
  private readonly dealListeners: ((deals: readonly DealRow[]) => void)[] = [];
  private readonly batchListeners: ((units: readonly WriteUnit[]) => void)[] = [];

  constructor(options: SequencerOptions) {
    this.committer = options.committer;
    this.nowMs = options.nowMs;
    this.nowUs = options.nowUs;
    this.onFatal = options.onFatal;
    options.committer.onCommitted((units) => this.committedBatch(units));
  }

  /** false from a failed commit until the database is back and the state reloaded. */
  get ready(): boolean {
    return !this.committer.failed;
  }

  /** Refuses a command before it changes anything when its rows could not be committed now. */
  admit(): void {
    this.committer.admit();
  }

  /** Resolves once the unit is durable. */
  commit(unit: WriteUnit): Promise<void> {
    return this.committer.commit(unit);
  }

  /** Runs a step that changes the books or the ledger; a throw there is fatal (see ExchangeOptions.onFatal). */
  mutating<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.onFatal?.(error);
      throw error;
    }
  }

  /** The book and ledger of a pair, active or not; UNKNOWN_PAIR when there is no such pair. */
  market(pairCode: string): Market {
    const market = this.markets.get(pairCode);
    if (market === undefined) throw new DomainError("UNKNOWN_PAIR", `Unknown currency pair ${pairCode}`);
    return market;
  }

  /** Rows of a command without a taker (cancels). */
  applyOutcome(market: Market, events: readonly BookEvent[], entries: readonly Entry[]): Applied {
    return this.mutating(() =>
      rowsOfEvents({
        pair: market.pairRef,
        ledger: this.ledger,
        openOrders: this.openOrders,
        taker: null,
        events,
        entries,
        nowMs: this.nowMs(),
      }),
    );
  }

  /** Calls `listener` with the deals of every command once they are durable, in commit order. */
  onDeals(listener: (deals: readonly DealRow[]) => void): void {
    this.dealListeners.push(listener);
  }

  /**
   * Calls `listener` with each committed batch's units, in commit order, once the committed view
   * holds them (the market-data and user streams read the view as of that batch).
   */
  onCommitted(listener: (units: readonly WriteUnit[]) => void): void {
    this.batchListeners.push(listener);
  }

  private committedBatch(units: readonly WriteUnit[]): void {
    for (const unit of units) {
      this.committed.apply(unit);
      if (unit.deals !== undefined && unit.deals.length > 0)
        for (const listener of this.dealListeners) listener(unit.deals);
    }
    for (const listener of this.batchListeners) listener(units);
  }
}
