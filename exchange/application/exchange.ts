import type { Candle, Interval } from "../core/candles/index.ts";
import { DomainError, invalidInput } from "../core/result.ts";
import { randomUUID } from "node:crypto";
import {
  applyEntry,
  createLedger,
  recountSupply,
  deposit as depositEntry,
  requiredHold,
  withdraw as withdrawEntry,
  type Entry,
  type LedgerState,
  type PairFees,
} from "../core/ledger/index.ts";
import { FastBook, type SelfTradePrevention, type TradeEvent } from "../core/matching/index.ts";
import { parseCurrencyUnits } from "../core/money/index.ts";
import type { Committer, ExchangeStore, OrderQuery } from "./ports.ts";
import type {
  ApiKeyRow,
  DealRow,
  DepositRow,
  LoadedState,
  OrderRow,
  Page,
  UserRow,
  WithdrawalRow,
  WriteUnit,
} from "./records.ts";
import { cancelAllOrders, cancelOrder, placeOrder, type PairMarket } from "../core/pair-market/index.ts";
import { monotonicMicros, type MicrosClock } from "./clock.ts";
import { CommittedView } from "./committed-view.ts";
import { InFlight } from "./in-flight.ts";
import { ReferenceData, type Currency, type Pair } from "./reference-data.ts";
import { balancesTouched, parseOrder, placeRejection, rowsOfEvents, type PlaceOrderInput } from "./order-rows.ts";

// The exchange's in-memory core and its sequencing. Every command runs synchronously against
// the books and the ledger (JavaScript runs one at a time, so no two commands interleave), then
// waits for the committer to make its rows durable before the caller answers: the database is
// always a prefix of what memory applied, and nothing acknowledged can be lost.
//
// Readers never see that working state: they read the committed view, which moves only when a
// batch has committed. When the database fails or hangs, the exchange turns unavailable (every
// write 503 before it changes anything, reads served from the committed view), waits for the
// database, reloads the working state from it exactly as start-up does, and takes writes again.

export interface KeyVault {
  encrypt(publicKey: string, privateKey: string): string;
  decrypt(publicKey: string, stored: string): string;
}

export interface ExchangeOptions {
  /** Storage (exchange/store passes its implementation of the port). */
  readonly store: ExchangeStore;
  readonly committer: Committer;
  readonly vault: KeyVault;
  readonly generateKeyPair: () => { publicKey: string; privateKey: string };
  /** Wall clock in epoch ms (order and wallet times). */
  readonly nowMs?: () => number;
  /** Deal times: strictly increasing epoch microseconds. */
  readonly nowUs?: MicrosClock;
  readonly defaultSelfTradePrevention?: SelfTradePrevention;
  /**
   * Called when a command throws after it began changing the books or the ledger (a bug): memory
   * may then be out of step with the database, so the process must stop and reload, as it does
   * when a commit fails. Default: rethrow only (tests).
   */
  readonly onFatal?: (error: unknown) => void;
  /** Backoff of the probe that waits for the database after a failed commit. */
  readonly recoveryDelayMs?: { readonly min: number; readonly max: number };
  readonly log?: (message: string) => void;
}

interface Market extends PairMarket {
  readonly pairRef: Pair;
}

export interface WithdrawArgs {
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency. */
  readonly amount: string;
  readonly address: string;
  readonly clientWithdrawalId?: string;
}

export interface OrderResult {
  readonly order: OrderRow;
  readonly fills: DealRow[];
  /** true when clientOrderId matched an earlier order: this is that order, nothing new was placed. */
  readonly replay: boolean;
}

export class Exchange {
  /** Replaced by a reload; read it at each use rather than keeping it. */
  reference!: ReferenceData;
  /** The working ledger (ahead of the database by the commands waiting for their commit). */
  ledger: LedgerState = createLedger();
  /** What the database holds: every read that a client sees comes from here. */
  committed!: CommittedView;
  private readonly markets = new Map<string, Market>();
  private readonly users = new Map<string, UserRow>();
  private readonly apiKeys = new Map<string, ApiKeyRow>();
  private readonly plainKeys = new Map<string, string>();
  /** Resting orders by id. */
  private readonly openOrders = new Map<string, OrderRow>();
  /** Commands keyed by a client's id while they run; once committed, the database answers repeats. */
  private readonly orderIds = new InFlight<OrderResult>();
  private readonly depositIds = new InFlight<DepositRow>();
  private readonly withdrawalIds = new InFlight<WithdrawalRow>();
  private orderSeq = 0;
  private readonly dealListeners: ((deals: readonly DealRow[]) => void)[] = [];
  private readonly reloadListeners: ((store: ExchangeStore) => Promise<void>)[] = [];
  private readonly options: ExchangeOptions;
  private readonly nowMs: () => number;
  private readonly nowUs: MicrosClock;
  private readonly guardedStore: ExchangeStore;
  private recovery: Promise<void> | null = null;
  private closed = false;

  private constructor(options: ExchangeOptions, state: LoadedState) {
    this.options = options;
    this.nowMs = options.nowMs ?? Date.now;
    this.nowUs = options.nowUs ?? monotonicMicros();
    this.guardedStore = options.store.guarded(
      () => !options.committer.failed,
      (error) => options.committer.fail(error),
    );
    this.load(state);
    options.committer.onCommitted((units) => this.committedBatch(units));
    options.committer.onFailure((error) => this.lostDatabase(error));
  }

  /** Loads everything from the database and rebuilds the ledger and every book as they were. */
  static async open(options: ExchangeOptions): Promise<Exchange> {
    return new Exchange(options, await options.store.loadState());
  }

  /**
   * Storage for reads and the few direct writes; while the exchange is unavailable it refuses at
   * once (DatabaseUnavailableError) instead of queueing callers behind a dead network.
   */
  get store(): ExchangeStore {
    return this.guardedStore;
  }

  /** false from a failed commit until the database is back and the state reloaded. */
  get ready(): boolean {
    return !this.options.committer.failed;
  }

  /** Builds the working state and the committed view from what the database holds. */
  private load(state: LoadedState): void {
    this.reference = new ReferenceData(state.currencies, state.pairs, state.commissions);
    this.users.clear();
    this.apiKeys.clear();
    this.plainKeys.clear();
    this.markets.clear();
    this.openOrders.clear();
    this.ledger = createLedger();
    for (const user of state.users) this.users.set(user.id, user);
    for (const key of state.apiKeys) if (key.revokedAt === null) this.apiKeys.set(key.publicKey, key);
    this.orderSeq = state.lastOrderSeq;
    this.restoreLedger(state);
    for (const pair of this.reference.pairs.values()) this.addMarket(pair, state.lastTradeSeq.get(pair.row.code) ?? 0);
    this.restoreBooks(state.openOrders);
    this.committed = CommittedView.of(state);
  }

  private committedBatch(units: readonly WriteUnit[]): void {
    for (const unit of units) {
      this.committed.apply(unit);
      if (unit.deals !== undefined && unit.deals.length > 0)
        for (const listener of this.dealListeners) listener(unit.deals);
    }
  }

  /**
   * A commit failed or hung: the committer already failed every waiting command and refuses new
   * ones. Probe the database with backoff; once it answers, fence off any statement of the old
   * connections, reload everything as start-up does, and take commands again.
   */
  private lostDatabase(error: unknown): void {
    const log = this.options.log ?? ((message: string) => console.error(message));
    log(
      `exchange: a commit failed (${(error as Error)?.message ?? error}); refusing writes until the database is back`,
    );
    if (this.recovery !== null) return;
    const { min, max } = this.options.recoveryDelayMs ?? { min: 100, max: 5_000 };
    this.recovery = (async () => {
      for (let delay = min; !this.closed; delay = Math.min(delay * 2, max)) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (this.closed) return;
        try {
          await this.options.store.fence();
          this.load(await this.options.store.loadState());
          for (const listener of this.reloadListeners) await listener(this.options.store);
          this.options.committer.resume();
          log("exchange: the database is back; state reloaded, taking commands again");
          return;
        } catch (failure) {
          log(
            `exchange: the database is still unavailable (${(failure as Error)?.message ?? failure}); retrying in ${Math.min(delay * 2, max)} ms`,
          );
        }
      }
    })().finally(() => (this.recovery = null));
  }

  /**
   * Runs after every reload, before writes are taken again (market data reloads its deals), with
   * the unguarded store: `store` still refuses while the exchange is unavailable.
   */
  onReload(listener: (store: ExchangeStore) => Promise<void>): void {
    this.reloadListeners.push(listener);
  }

  /** Stops a running recovery (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.recovery;
  }

  /** Refuses a command before it changes anything when its rows could not be committed now. */
  private admit(): void {
    this.options.committer.admit();
  }

  // -------------------------------------------------------------------------------------------
  // Users and keys

  user(userId: string): UserRow | undefined {
    return this.users.get(userId);
  }

  async createUser(level: number, address: string | null): Promise<UserRow> {
    const user: UserRow = { id: randomUUID(), level, address: address?.toLowerCase() ?? null, createdAt: this.nowMs() };
    await this.store.insertUser(user);
    this.users.set(user.id, user);
    return user;
  }

  /** Issues a key pair; the private key is returned once and stored only encrypted. */
  async issueApiKey(userId: string): Promise<{ publicKey: string; privateKey: string }> {
    if (!this.users.has(userId)) throw new DomainError("NOT_FOUND", `Unknown user ${userId}`);
    const pair = this.options.generateKeyPair();
    const row: ApiKeyRow = {
      publicKey: pair.publicKey,
      userId,
      privateKeyEncrypted: this.options.vault.encrypt(pair.publicKey, pair.privateKey),
      createdAt: this.nowMs(),
      revokedAt: null,
    };
    await this.store.insertApiKey(row);
    this.apiKeys.set(row.publicKey, row);
    this.plainKeys.set(row.publicKey, pair.privateKey);
    return pair;
  }

  /** The signing secret behind a public key, decrypted once and kept in memory. */
  resolveKey(publicKey: string): { userId: string; privateKey: string } | undefined {
    const row = this.apiKeys.get(publicKey);
    if (row === undefined) return undefined;
    let privateKey = this.plainKeys.get(publicKey);
    if (privateKey === undefined)
      this.plainKeys.set(publicKey, (privateKey = this.options.vault.decrypt(publicKey, row.privateKeyEncrypted)));
    return { userId: row.userId, privateKey };
  }

  private levelOf(userId: string): number {
    return this.users.get(userId)?.level ?? 0;
  }

  // -------------------------------------------------------------------------------------------
  // Orders

  /** Places an order; a repeated clientOrderId returns the first result instead of a second order. */
  async placeOrder(userId: string, input: PlaceOrderInput): Promise<OrderResult> {
    this.admit();
    if (input.clientOrderId === undefined) return this.placeNow(userId, input);
    const clientOrderId = input.clientOrderId;
    const { value, replay } = await this.orderIds.once(
      `${userId}\u0000${clientOrderId}`,
      async () => {
        const earlier = await this.store.getOrderByClientId(userId, clientOrderId);
        return earlier === null
          ? null
          : { order: earlier, fills: await this.store.listOrderDeals(earlier.id), replay: true };
      },
      () => this.placeNow(userId, input),
    );
    return { ...value, replay };
  }

  private async placeNow(userId: string, input: PlaceOrderInput): Promise<OrderResult> {
    // Only new orders need an active pair; cancels and restarts reach the orders of an inactive one.
    this.reference.pair(input.currencyPairCode);
    const market = this.market(input.currencyPairCode);
    const parsed = parseOrder(market.pairRef, input, () => market.book.depth(false, Number.MAX_SAFE_INTEGER));
    this.admit();
    const nowMs = this.nowMs();
    const request = {
      orderId: randomUUID(),
      userId,
      isBid: input.isBid,
      type: input.type,
      ...(parsed.priceTicks === undefined ? {} : { price: parsed.priceTicks }),
      amount: parsed.amountLots,
      timeInForce: parsed.timeInForce,
      postOnly: input.postOnly ?? false,
      selfTradePrevention: input.selfTradePrevention ?? this.options.defaultSelfTradePrevention ?? "cancel_taker",
      ...(parsed.quoteBudget === undefined ? {} : { quoteBudget: parsed.quoteBudget }),
      timestamp: this.nowUs(),
    } as const;
    const outcome = this.mutating(() => placeOrder(this.ledger, market, request));
    if (!outcome.ok) throw placeRejection(outcome.code, outcome.message);
    const taker: OrderRow = {
      id: request.orderId,
      userId,
      pairCode: market.pairRef.row.code,
      clientOrderId: input.clientOrderId ?? null,
      isBid: input.isBid,
      type: input.type,
      timeInForce: request.timeInForce,
      postOnly: request.postOnly,
      selfTradePrevention: request.selfTradePrevention,
      priceTicks: parsed.priceTicks ?? null,
      amountLots: parsed.amountLots,
      quoteBudget: parsed.quoteBudget ?? null,
      filledLots: 0,
      remainingLots: 0,
      filledQuote: 0n,
      status: "open",
      reason: null,
      seq: ++this.orderSeq,
      createdAt: nowMs,
      updatedAt: nowMs,
    };
    const applied = this.mutating(() =>
      rowsOfEvents({
        pair: market.pairRef,
        ledger: this.ledger,
        openOrders: this.openOrders,
        taker,
        events: outcome.value.events,
        entries: outcome.value.entries,
        nowMs,
      }),
    );
    await this.options.committer.commit(applied.unit);
    return { order: applied.orders[0], fills: applied.deals, replay: false };
  }

  /** Calls `listener` with the deals of every command once they are durable, in commit order. */
  onDeals(listener: (deals: readonly DealRow[]) => void): void {
    this.dealListeners.push(listener);
  }

  /** The order as committed: its resting state from the committed view, else as stored. */
  async order(userId: string, orderId: string): Promise<OrderRow> {
    const open = this.committed.openOrder(orderId);
    if (open !== undefined && open.userId === userId) return open;
    const stored = await this.store.getOrder(orderId);
    // Another user's order looks unknown, so ids leak nothing.
    if (stored === null || stored.userId !== userId) throw new DomainError("NOT_FOUND", `No order ${orderId}`);
    return stored;
  }

  async cancelOrder(userId: string, orderId: string): Promise<OrderRow> {
    const open = this.openOrders.get(orderId);
    if (open === undefined || open.userId !== userId) {
      const stored = await this.order(userId, orderId);
      throw new DomainError("ORDER_NOT_OPEN", `Order ${orderId} is ${stored.status}`);
    }
    const market = this.market(open.pairCode);
    this.admit();
    const outcome = this.mutating(() => cancelOrder(this.ledger, market, userId, orderId));
    const applied = this.applyOutcome(market, outcome.events, outcome.entries);
    await this.options.committer.commit(applied.unit);
    return applied.orders.find((row) => row.id === orderId) ?? open;
  }

  /** Cancels every open order of the user, on one pair or on all; returns the cancelled orders. */
  async cancelAll(userId: string, pairCode?: string): Promise<OrderRow[]> {
    const markets = pairCode === undefined ? [...this.markets.values()] : [this.market(pairCode)];
    this.admit();
    const orders: OrderRow[] = [];
    const units: WriteUnit[] = [];
    for (const market of markets) {
      const outcome = this.mutating(() => cancelAllOrders(this.ledger, market, userId));
      if (outcome.events.length === 0) continue;
      const applied = this.applyOutcome(market, outcome.events, outcome.entries);
      orders.push(...applied.orders);
      units.push(applied.unit);
    }
    // One unit for every pair: the command takes one slot of the bounded commit queue.
    if (units.length > 0) await this.options.committer.commit(mergeUnits(units));
    return orders;
  }

  private applyOutcome(
    market: Market,
    events: Parameters<typeof rowsOfEvents>[0]["events"],
    entries: readonly Entry[],
  ) {
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

  /** Runs a step that changes the books or the ledger; a throw there is fatal (see ExchangeOptions.onFatal). */
  private mutating<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.options.onFatal?.(error);
      throw error;
    }
  }

  /**
   * A user's orders, newest first. Open ones come from the committed view (served while the
   * database is away); closed ones are only stored.
   */
  async orders(userId: string, query: OrderQuery): Promise<Page<OrderRow>> {
    if (query.pairCode !== undefined) this.reference.pair(query.pairCode);
    if (query.scope !== "open") return this.store.listOrders(userId, query);
    const open = this.openOrdersOf(userId, query.pairCode);
    return {
      items: open.slice((query.page - 1) * query.pageSize, query.page * query.pageSize),
      totalItems: open.length,
    };
  }

  /** The deals an order took part in, oldest first. */
  orderFills(orderId: string): Promise<DealRow[]> {
    return this.store.listOrderDeals(orderId);
  }

  /** A user's committed open orders, newest first. */
  openOrdersOf(userId: string, pairCode?: string): OrderRow[] {
    return this.committed.openOrdersOf(userId, pairCode);
  }

  /** Changes whenever the pair's committed book may have changed since the last call returned it. */
  bookVersion(pairCode: string): number {
    return this.committed.version(pairCode);
  }

  /** The book and ledger of a pair, active or not; 400 UNKNOWN_PAIR when there is no such pair. */
  market(pairCode: string): Market {
    const market = this.markets.get(pairCode);
    if (market === undefined) throw new DomainError("UNKNOWN_PAIR", `Unknown currency pair ${pairCode}`);
    return market;
  }

  /** Candles of `interval` whose bucket overlaps [startMs, endMs], oldest first; empty buckets are left out. */
  candles(pairCode: string, interval: Interval, startMs: number, endMs: number): Promise<Candle[]> {
    return this.store.readCandles(pairCode, interval, startMs, endMs);
  }

  // -------------------------------------------------------------------------------------------
  // Wallet

  /** A user's committed balances in every currency. */
  balances(userId: string): { currency: string; available: bigint; locked: bigint }[] {
    return [...this.reference.currencies.keys()].map((currency) => ({
      currency,
      ...this.committed.balance(userId, currency),
    }));
  }

  /** A user's credited deposits, newest first. */
  deposits(userId: string, page: number, pageSize: number): Promise<Page<DepositRow>> {
    return this.store.listDeposits(userId, page, pageSize);
  }

  /** A user's withdrawals, newest first. */
  withdrawals(userId: string, page: number, pageSize: number): Promise<Page<WithdrawalRow>> {
    return this.store.listWithdrawals(userId, page, pageSize);
  }

  /** Credits a deposit less its Refill commission; a repeated id returns the first deposit. */
  async deposit(args: {
    userId: string;
    currency: string;
    amount: string;
    reference: string | null;
    depositId?: string;
  }): Promise<DepositRow> {
    if (!this.users.has(args.userId)) throw new DomainError("NOT_FOUND", `Unknown user ${args.userId}`);
    const currency = this.reference.currency(args.currency);
    if (!currency.row.canDeposit)
      throw new DomainError("DEPOSITS_DISABLED", `Deposits of ${currency.row.code} are disabled`);
    const amount = positiveAmount(currency, args.amount);
    const id = args.depositId ?? randomUUID();
    // A deposit id repeated while the first is still being credited, or after, is refused: it
    // must never be credited twice.
    const { value, replay } = await this.depositIds.once(
      id,
      () => this.store.getDeposit(id),
      () => this.credit(id, args.userId, currency, amount, args.reference),
    );
    if (replay) throw new DomainError("DUPLICATE_DEPOSIT", `Deposit ${id} was already credited`);
    return value;
  }

  private async credit(
    id: string,
    userId: string,
    currency: Currency,
    amount: bigint,
    reference: string | null,
  ): Promise<DepositRow> {
    const fee = this.reference.walletFee("refill", currency, this.levelOf(userId));
    const entry = depositEntry(this.ledger, { depositId: id, userId, currency: currency.spec, amount, fee });
    if (!entry.ok) throw invalidInput("amount", entry.message);
    this.admit();
    this.mutating(() => applyEntry(this.ledger, entry.value));
    const row: DepositRow = {
      id,
      userId,
      currency: currency.row.code,
      amount,
      fee: feeOfEntry(entry.value),
      reference,
      createdAt: this.nowMs(),
    };
    await this.options.committer.commit({
      deposits: [row],
      entries: [entry.value],
      ...balancesTouched(this.ledger, [entry.value]),
    });
    return row;
  }

  /**
   * Debits a withdrawal (the fee comes out of the amount) and queues it for sending. With a
   * clientWithdrawalId, a repeat (a client retrying after a timeout) returns the first withdrawal
   * as a replay and never debits twice.
   */
  async withdraw(args: WithdrawArgs): Promise<{ withdrawal: WithdrawalRow; replay: boolean }> {
    const clientId = args.clientWithdrawalId;
    if (clientId === undefined) return { withdrawal: await this.debit(args), replay: false };
    const { value, replay } = await this.withdrawalIds.once(
      `${args.userId}\u0000${clientId}`,
      () => this.store.getWithdrawalByClientId(args.userId, clientId),
      () => this.debit(args),
    );
    return { withdrawal: value, replay };
  }

  private async debit(args: WithdrawArgs): Promise<WithdrawalRow> {
    const currency = this.reference.currency(args.currency);
    if (!currency.row.canWithdraw)
      throw new DomainError("WITHDRAWALS_DISABLED", `Withdrawals of ${currency.row.code} are disabled`);
    const amount = positiveAmount(currency, args.amount);
    const min =
      currency.row.minWithdraw === null ? null : parseCurrencyUnits(currency.row.minWithdraw, currency.spec, "up");
    const max =
      currency.row.maxWithdraw === null ? null : parseCurrencyUnits(currency.row.maxWithdraw, currency.spec, "down");
    if (min?.ok && amount < min.value)
      throw new DomainError(
        "BELOW_MIN_WITHDRAW",
        `amount: the minimum ${currency.row.code} withdrawal is ${currency.row.minWithdraw}`,
      );
    if (max?.ok && amount > max.value)
      throw new DomainError(
        "ABOVE_MAX_WITHDRAW",
        `amount: the maximum ${currency.row.code} withdrawal is ${currency.row.maxWithdraw}`,
      );
    const id = randomUUID();
    const fee = this.reference.walletFee("withdrawal", currency, this.levelOf(args.userId));
    const entry = withdrawEntry(this.ledger, {
      withdrawalId: id,
      userId: args.userId,
      currency: currency.spec,
      amount,
      fee,
    });
    if (!entry.ok) {
      if (entry.code === "INSUFFICIENT_FUNDS") throw new DomainError("INSUFFICIENT_BALANCE", entry.message);
      if (entry.code === "AMOUNT_BELOW_FEE") throw new DomainError("AMOUNT_BELOW_FEE", entry.message);
      throw new DomainError("INVALID_PARAM", entry.message);
    }
    this.admit();
    this.mutating(() => applyEntry(this.ledger, entry.value));
    const row: WithdrawalRow = {
      id,
      userId: args.userId,
      clientWithdrawalId: args.clientWithdrawalId ?? null,
      currency: currency.row.code,
      amount,
      fee: feeOfEntry(entry.value),
      address: args.address,
      status: "pending",
      createdAt: this.nowMs(),
    };
    await this.options.committer.commit({
      withdrawals: [row],
      entries: [entry.value],
      ...balancesTouched(this.ledger, [entry.value]),
    });
    return row;
  }

  /** The commission rows a user is charged by (SPEC.md's GET /api/currencies/user/commissions). */
  commissionsOf(userId: string) {
    return this.reference.commissionsFor(this.levelOf(userId));
  }

  /**
   * Per currency: what users hold, what the exchange earned, and what came in and went out. The
   * books balance when holdings + fees = deposits - withdrawals sent, for every currency.
   */
  async reconcile(): Promise<
    {
      currency: string;
      available: bigint;
      locked: bigint;
      fees: bigint;
      deposited: bigint;
      withdrawn: bigint;
      balanced: boolean;
    }[]
  > {
    const { deposited, withdrawn } = await this.store.walletFlows();
    // The committed view, not the working ledger: commands in flight are not in the sums above.
    const held = new Map<string, { available: bigint; locked: bigint }>();
    for (const balance of this.committed.allBalances()) {
      const total = held.get(balance.currency) ?? { available: 0n, locked: 0n };
      held.set(balance.currency, {
        available: total.available + balance.available,
        locked: total.locked + balance.locked,
      });
    }
    return [...this.reference.currencies.keys()].map((currency) => {
      const { available, locked } = held.get(currency) ?? { available: 0n, locked: 0n };
      const fees = this.committed.feeTotal(currency);
      const inflow = deposited.get(currency) ?? 0n;
      const outflow = withdrawn.get(currency) ?? 0n;
      return {
        currency,
        available,
        locked,
        fees,
        deposited: inflow,
        withdrawn: outflow,
        balanced: available + locked + fees === inflow - outflow,
      };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Start-up

  private addMarket(pair: Pair, lastTradeSeq: number): void {
    const fees = (trade: TradeEvent): PairFees => {
      const maker = this.reference.pairFees(pair, this.levelOf(trade.makerUserId));
      const taker = this.reference.pairFees(pair, this.levelOf(trade.takerUserId));
      return { maker: maker.maker, taker: taker.taker };
    };
    this.markets.set(pair.row.code, { pair: pair.spec, pairRef: pair, fees, book: new FastBook({ lastTradeSeq }) });
  }

  private restoreLedger(state: LoadedState): void {
    const balances = this.ledger.balances;
    for (const row of state.balances) {
      let own = balances.get(row.userId);
      if (own === undefined) balances.set(row.userId, (own = new Map()));
      own.set(row.currency, { available: row.available, locked: row.locked });
    }
    for (const row of state.fees) this.ledger.fees.set(row.currency, row.amount);
    recountSupply(this.ledger);
  }

  /**
   * Puts every resting order back in its original arrival order, so time priority is kept, and
   * its hold back from what its remainder needs; then checks the holds add up to the stored
   * locked balances, which proves the stored state is consistent before trading resumes.
   */
  private restoreBooks(openOrders: readonly OrderRow[]): void {
    const lockedByAccount = new Map<string, bigint>();
    for (const row of openOrders) {
      const market = this.market(row.pairCode);
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
      this.ledger.holds.set(row.id, {
        orderId: row.id,
        userId: row.userId,
        currency: hold.value.currency,
        amount: hold.value.amount,
      });
      const key = `${row.userId}\u0000${hold.value.currency}`;
      lockedByAccount.set(key, (lockedByAccount.get(key) ?? 0n) + hold.value.amount);
      this.openOrders.set(row.id, row);
    }
    for (const [userId, own] of this.ledger.balances) {
      for (const [currency, balance] of own) {
        const held = lockedByAccount.get(`${userId}\u0000${currency}`) ?? 0n;
        if (held !== balance.locked)
          throw new Error(
            `stored state is inconsistent: ${userId} has ${balance.locked} ${currency} locked but open orders hold ${held}`,
          );
      }
    }
  }
}

/** Several units as one, rows in order (a later row of the same key still wins when written). */
function mergeUnits(units: readonly WriteUnit[]): WriteUnit {
  const merged = { orders: [], deals: [], entries: [], balances: [], fees: [], deposits: [], withdrawals: [] } as {
    [K in keyof WriteUnit]-?: NonNullable<WriteUnit[K]>[number][];
  };
  for (const unit of units)
    for (const key of Object.keys(merged) as (keyof WriteUnit)[]) (merged[key] as unknown[]).push(...(unit[key] ?? []));
  return merged;
}

function feeOfEntry(entry: Entry): bigint {
  return entry.postings
    .filter((posting) => posting.account.kind === "fees")
    .reduce((sum, posting) => sum + posting.delta, 0n);
}

/** A deposit's or withdrawal's amount in base units: positive, within the currency's decimals and storage. */
function positiveAmount(currency: Currency, text: string): bigint {
  const amount = parseCurrencyUnits(text, currency.spec);
  if (!amount.ok && amount.code === "OUT_OF_RANGE") throw invalidInput("amount", amount.message);
  if (!amount.ok || amount.value <= 0n)
    throw invalidInput(
      "amount",
      `must be a positive ${currency.row.code} amount with at most ${currency.spec.decimals} decimals`,
    );
  return amount.value;
}
