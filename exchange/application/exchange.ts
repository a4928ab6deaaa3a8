import type { Candle, Interval } from "../core/candles/index.ts";
import type { LedgerState } from "../core/ledger/index.ts";
import type { SelfTradePrevention } from "../core/matching/index.ts";
import { DEFAULT_WEB_SESSIONS, WebSessions, type WebSessionsOptions } from "./web-sessions.ts";
import { Accounts, type KeyVault } from "./accounts.ts";
import { monotonicMicros, type MicrosClock } from "./clock.ts";
import type { CommittedView } from "./committed-view.ts";
import { FeeHolds, type FeeHoldArgs } from "./fee-holds.ts";
import type { PlaceOrderInput } from "./order-rows.ts";
import { Listings, type ListingOutcome, type TokenToList } from "./listings.ts";
import { Orders, type OrderResult } from "./orders.ts";
import type { Committer, ExchangeStore, OrderQuery } from "./ports.ts";
import type {
  DealRow,
  DepositRow,
  FeeHoldRow,
  OrderRow,
  Page,
  UserRow,
  WithdrawalRow,
  WithdrawalStatus,
  WriteUnit,
} from "./records.ts";
import { reconcile, Recovery, type CurrencyReconciliation } from "./recovery.ts";
import type { ReferenceData } from "./reference-data.ts";
import { Sequencer, type Market } from "./sequencer.ts";
import { Wallet, type DepositArgs, type SendingSwitch, type WithdrawArgs, type WithdrawalGate } from "./wallet.ts";
import { Withdrawals } from "./withdrawals.ts";

// The exchange as its adapters see it: one object over the roles (accounts, orders, wallet, fee
// holds, recovery) that share the working state of one Sequencer. It holds no logic of its own, so
// routes, the server and the tools have one thing to hold while each role lives in its module.
//
// When the database fails or hangs, the exchange turns unavailable (every write refused before
// it changes anything, reads served from the committed view), waits for the database, reloads
// the working state from it exactly as start-up does, and takes writes again (recovery.ts).

export interface ExchangeOptions {
  /** Storage (exchange/adapters/store passes its implementation of the port). */
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
  /** Web account sessions and sign-in nonces (defaults: DEFAULT_WEB_SESSIONS). */
  readonly webSessions?: Partial<Omit<WebSessionsOptions, "store" | "nowMs">>;
}

export class Exchange {
  /** The guarded store: refuses at once (UnavailableError) while the exchange is unavailable. */
  readonly store: ExchangeStore;
  private readonly sequencer: Sequencer;
  private readonly accounts: Accounts;
  private readonly ordersRole: Orders;
  private readonly wallet: Wallet;
  private readonly feeHolds: FeeHolds;
  private readonly withdrawalsRole: Withdrawals;
  private readonly recovery: Recovery;
  private readonly listings: Listings;
  /** The web account's sign-in nonces and sessions (Sign in with Ethereum). */
  readonly webSessions: WebSessions;

  private constructor(options: ExchangeOptions) {
    const nowMs = options.nowMs ?? Date.now;
    const committer = options.committer;
    this.store = options.store.guarded(
      () => !committer.failed,
      (error) => committer.fail(error),
    );
    this.sequencer = new Sequencer({
      committer,
      nowMs,
      nowUs: options.nowUs ?? monotonicMicros(),
      onFatal: options.onFatal,
    });
    this.accounts = new Accounts({
      store: this.store,
      vault: options.vault,
      generateKeyPair: options.generateKeyPair,
      nowMs,
    });
    this.webSessions = new WebSessions({ ...DEFAULT_WEB_SESSIONS, ...options.webSessions, store: this.store, nowMs });
    this.ordersRole = new Orders({
      sequencer: this.sequencer,
      store: this.store,
      defaultSelfTradePrevention: options.defaultSelfTradePrevention,
    });
    this.wallet = new Wallet({ sequencer: this.sequencer, accounts: this.accounts, store: this.store });
    this.feeHolds = new FeeHolds({ sequencer: this.sequencer, accounts: this.accounts, store: this.store });
    this.withdrawalsRole = new Withdrawals({ sequencer: this.sequencer, store: this.store });
    this.recovery = new Recovery({
      sequencer: this.sequencer,
      accounts: this.accounts,
      store: options.store,
      committer,
      recoveryDelayMs: options.recoveryDelayMs,
      log: options.log,
    });
    this.recovery.onReload(async () => this.withdrawalsRole.forget());
    this.listings = new Listings({
      sequencer: this.sequencer,
      store: this.store,
      openMarket: (pair) => this.recovery.openMarket(pair, 0),
      log: options.log ?? ((message) => console.log(message)),
    });
  }

  /** Loads everything from the database and rebuilds the ledger and every book as they were. */
  static async open(options: ExchangeOptions): Promise<Exchange> {
    const exchange = new Exchange(options);
    const state = await options.store.loadState();
    exchange.recovery.load(state);
    exchange.webSessions.load(state.webSessions);
    return exchange;
  }

  /** Currencies, pairs and commissions; replaced by a reload, so read it at each use. */
  get reference(): ReferenceData {
    return this.sequencer.reference;
  }

  /** The working ledger (ahead of the database by the commands waiting for their commit). */
  get ledger(): LedgerState {
    return this.sequencer.ledger;
  }

  /** What the database holds: every read that a client sees comes from here. */
  get committed(): CommittedView {
    return this.sequencer.committed;
  }

  /** false from a failed commit until the database is back and the state reloaded. */
  get ready(): boolean {
    return this.sequencer.ready;
  }

  onReload(listener: (store: ExchangeStore) => Promise<void>): void {
    this.recovery.onReload(listener);
  }

  /** Calls `listener` with every committed batch's units, in commit order (Sequencer.onCommitted). */
  onCommitted(listener: (units: readonly WriteUnit[]) => void): void {
    this.sequencer.onCommitted(listener);
  }

  /** Calls `listener` with the deals of every command once they are durable, in commit order. */
  onDeals(listener: (deals: readonly DealRow[]) => void): void {
    this.sequencer.onDeals(listener);
  }

  /** Stops a running recovery (shutdown). */
  close(): Promise<void> {
    return this.recovery.close();
  }

  reconcile(): Promise<CurrencyReconciliation[]> {
    return reconcile(this.sequencer, this.store);
  }

  // Accounts and keys

  user(userId: string): UserRow | undefined {
    return this.accounts.user(userId);
  }

  /** Every user's id (the chain gateway derives their deposit addresses). */
  userIds(): IterableIterator<string> {
    return this.accounts.userIds();
  }

  get userCount(): number {
    return this.accounts.userCount;
  }

  createUser(level: number, address: string | null): Promise<UserRow> {
    return this.accounts.createUser(level, address);
  }

  issueApiKey(userId: string): Promise<{ publicKey: string; privateKey: string }> {
    return this.accounts.issueApiKey(userId);
  }

  resolveKey(publicKey: string): { userId: string; privateKey: string } | undefined {
    return this.accounts.resolveKey(publicKey);
  }

  userByAddress(address: string): UserRow | undefined {
    return this.accounts.userByAddress(address);
  }

  /** The account a signed-in address owns, created at level 0 on its first sign-in. */
  accountOfAddress(address: string): Promise<UserRow> {
    return this.accounts.accountOfAddress(address);
  }

  keysOf(userId: string): { publicKey: string; createdAt: number; lastUsedAt: number | null }[] {
    return this.accounts.keysOf(userId);
  }

  /** A key signed an accepted request now (for the web account's key list). */
  noteKeyUse(publicKey: string): void {
    this.accounts.noteKeyUse(publicKey);
  }

  flushKeyUses(): Promise<void> {
    return this.accounts.flushKeyUses();
  }

  revokeApiKey(userId: string, publicKey: string): Promise<void> {
    return this.accounts.revokeApiKey(userId, publicKey);
  }

  onKeyRevoked(listener: (publicKey: string) => void): void {
    this.accounts.onKeyRevoked(listener);
  }

  // Orders and market reads

  placeOrder(userId: string, input: PlaceOrderInput): Promise<OrderResult> {
    return this.ordersRole.placeOrder(userId, input);
  }

  order(userId: string, orderId: string): Promise<OrderRow> {
    return this.ordersRole.order(userId, orderId);
  }

  cancelOrder(userId: string, orderId: string): Promise<OrderRow> {
    return this.ordersRole.cancelOrder(userId, orderId);
  }

  cancelAll(userId: string, pairCode?: string): Promise<OrderRow[]> {
    return this.ordersRole.cancelAll(userId, pairCode);
  }

  orders(userId: string, query: OrderQuery): Promise<Page<OrderRow>> {
    return this.ordersRole.orders(userId, query);
  }

  orderFills(orderId: string): Promise<DealRow[]> {
    return this.ordersRole.orderFills(orderId);
  }

  openOrdersOf(userId: string, pairCode?: string): OrderRow[] {
    return this.ordersRole.openOrdersOf(userId, pairCode);
  }

  /** Changes whenever the pair's committed book may have changed since the last call returned it. */
  bookVersion(pairCode: string): number {
    return this.sequencer.committed.version(pairCode);
  }

  /** The working book and ledger of a pair, active or not; UNKNOWN_PAIR when there is no such pair. */
  market(pairCode: string): Market {
    return this.sequencer.market(pairCode);
  }

  /** Candles of `interval` whose bucket overlaps [startMs, endMs], oldest first; empty buckets are left out. */
  candles(pairCode: string, interval: Interval, startMs: number, endMs: number): Promise<Candle[]> {
    return this.store.readCandles(pairCode, interval, startMs, endMs);
  }

  // Wallet

  balances(userId: string): { currency: string; available: bigint; locked: bigint }[] {
    return this.wallet.balances(userId);
  }

  deposit(args: DepositArgs): Promise<DepositRow> {
    return this.wallet.deposit(args);
  }

  withdraw(args: WithdrawArgs): Promise<{ withdrawal: WithdrawalRow; replay: boolean }> {
    return this.wallet.withdraw(args);
  }

  deposits(userId: string, page: number, pageSize: number): Promise<Page<DepositRow>> {
    return this.wallet.deposits(userId, page, pageSize);
  }

  withdrawals(userId: string, page: number, pageSize: number): Promise<Page<WithdrawalRow>> {
    return this.wallet.withdrawals(userId, page, pageSize);
  }

  // Withdrawals after their debit: the chain sender and the operator (application/withdrawals.ts)

  /** Installs the chain gateway's check of withdrawal requests (address, currency); undefined removes it. */
  setWithdrawalGate(gate: WithdrawalGate | undefined): void {
    this.wallet.setWithdrawalGate(gate);
  }

  /** Deposits of `code` are on and, with a chain gateway, seen on the chain (aggregator's can_deposit). */
  canDeposit(code: string): boolean {
    return this.wallet.canDeposit(code);
  }

  /** Withdrawals of `code` are on and can be sent (aggregator's can_withdraw). */
  canWithdraw(code: string): boolean {
    return this.wallet.canWithdraw(code);
  }

  /** How deep a sent withdrawal's transaction is (blocks), when the chain gateway knows. */
  withdrawalConfirmations(id: string): number | undefined {
    return this.wallet.confirmationsOf(id);
  }

  /** The operator's switch of withdrawal sending (the chain sender's); undefined without a chain gateway. */
  withdrawalSending(): SendingSwitch | undefined {
    return this.wallet.sendingSwitch();
  }

  /** Why the chain gateway holds a pending withdrawal back, when it does. */
  withdrawalWaitingReason(id: string): string | undefined {
    return this.wallet.waitingReasonOf(id);
  }

  withdrawal(id: string): Promise<WithdrawalRow> {
    return this.withdrawalsRole.get(id);
  }

  /** The withdrawals of `ids` as committed (those that exist), in the order asked. */
  withdrawalsById(ids: readonly string[]): Promise<WithdrawalRow[]> {
    return this.withdrawalsRole.getMany(ids);
  }

  /** Withdrawals in one of `statuses`, oldest first. */
  withdrawalsByStatus(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRow[]> {
    return this.withdrawalsRole.list(statuses, limit);
  }

  markWithdrawalSent(id: string, txHash: string): Promise<WithdrawalRow> {
    return this.withdrawalsRole.markSent(id, txHash);
  }

  markWithdrawalCompleted(id: string, txHash: string): Promise<WithdrawalRow> {
    return this.withdrawalsRole.markCompleted(id, txHash);
  }

  /** Failed and refunded (amount and fee back to available). */
  markWithdrawalFailed(id: string, reason: string, txHash?: string | null): Promise<WithdrawalRow> {
    return this.withdrawalsRole.markFailed(id, reason, txHash);
  }

  approveWithdrawal(id: string): Promise<WithdrawalRow> {
    return this.withdrawalsRole.approve(id);
  }

  rejectWithdrawal(id: string, reason: string | null): Promise<WithdrawalRow> {
    return this.withdrawalsRole.reject(id, reason);
  }

  commissionsOf(userId: string) {
    return this.wallet.commissionsOf(userId);
  }

  // Listings of spawned agent tokens (the listing follower, exchange/adapters/listing)

  /**
   * Lists a spawned token once: its currency and `<SYMBOL>_USDT` pair, stored in one transaction
   * and trading at once; repeats are "already-listed", a symbol or contract held by another
   * currency "refused" with a stable code (application/listings.ts). Rejects when storage failed.
   */
  listToken(token: TokenToList): Promise<ListingOutcome> {
    return this.listings.list(token);
  }

  // Fee holds for on-chain actions (internal: the ecosystem API)

  holdFee(args: FeeHoldArgs): Promise<{ row: FeeHoldRow; created: boolean }> {
    return this.feeHolds.hold(args);
  }

  settleFeeHold(holdId: string, reference?: string | null): Promise<FeeHoldRow> {
    return this.feeHolds.settle(holdId, reference);
  }

  releaseFeeHold(holdId: string): Promise<FeeHoldRow> {
    return this.feeHolds.release(holdId);
  }

  feeHold(holdId: string): Promise<FeeHoldRow> {
    return this.feeHolds.get(holdId);
  }
}
