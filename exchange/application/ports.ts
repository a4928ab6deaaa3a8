import type { Candle, Interval } from "../core/candles/index.ts";
import type {
  ApiKeyRow,
  CurrencyRow,
  DealRow,
  DepositRow,
  FeeHoldRow,
  LoadedState,
  OrderRow,
  Page,
  UserRow,
  TokenListingRows,
  WebSessionRow,
  WithdrawalRow,
  WithdrawalStatus,
  WriteUnit,
} from "./records.ts";

// What the application needs from storage, declared here so it never imports the store adapter:
// the composition root (server/start.ts) passes in exchange/adapters/store's implementation.

/** The group committer as the application drives it (exchange/adapters/store/committer.ts). */
export interface Committer {
  /** Resolves once the unit is durable; rejects with UnavailableError when it cannot be. */
  commit(unit: WriteUnit): Promise<void>;
  /** Throws UnavailableError when a command's rows could not be committed now. */
  admit(): void;
  readonly failed: boolean;
  fail(cause: unknown): void;
  onCommitted(listener: (units: readonly WriteUnit[]) => void): void;
  onFailure(listener: (error: unknown) => void): void;
  resume(): void;
}

export interface OrderQuery {
  readonly pairCode?: string;
  readonly scope: "open" | "history" | "all";
  readonly page: number;
  readonly pageSize: number;
}

/** A page of a pair's deals: inclusive time bounds on executedAtUs, optionally one taker side. */
export interface DealRange {
  readonly sinceUs?: number;
  readonly untilUs?: number;
  readonly takerIsBid?: boolean;
  readonly offset: number;
  readonly limit: number;
}

/** Deposits, withdrawals sent and fees burned, per currency: what reconciliation compares the balances with. */
export interface WalletFlows {
  readonly deposited: Map<string, bigint>;
  /** Amounts less fees: what left the exchange. */
  readonly withdrawn: Map<string, bigint>;
  /** Settled fee holds: paid for on-chain actions, burned there, so they left the exchange too. */
  readonly burned: Map<string, bigint>;
}

export interface ExchangeStore {
  /** Everything start-up needs, as one consistent snapshot. */
  loadState(): Promise<LoadedState>;
  /** After an outage: waits until no statement sent before can still commit (see Db.fence). */
  fence(): Promise<void>;
  insertUser(row: UserRow): Promise<void>;
  /**
   * A spawned token's currency, pair and commission rows in one transaction; when a currency
   * with the same code or contract is stored, writes nothing and returns it (`existing`).
   */
  insertListing(rows: TokenListingRows): Promise<{ inserted: boolean; existing: CurrencyRow[] }>;
  /** Binds a currency without a contract to `contractAddress`; false when it already has one. */
  bindCurrencyContract(code: string, contractAddress: string): Promise<boolean>;
  insertApiKey(row: ApiKeyRow): Promise<void>;
  /** Marks a key revoked at `atMs`; false when it was unknown or already revoked. */
  revokeApiKey(publicKey: string, atMs: number): Promise<boolean>;
  /** Records keys' last accepted uses (never moving one back). */
  touchApiKeys(uses: readonly { publicKey: string; atMs: number }[]): Promise<void>;
  insertWebSession(row: WebSessionRow): Promise<void>;
  /** Marks a session revoked at `atMs` (sign-out). */
  revokeWebSession(tokenHash: string, atMs: number): Promise<void>;
  getOrder(orderId: string): Promise<OrderRow | null>;
  getOrderByClientId(userId: string, clientOrderId: string): Promise<OrderRow | null>;
  /** A user's orders, newest first. */
  listOrders(userId: string, query: OrderQuery): Promise<Page<OrderRow>>;
  /** The deals an order took part in, oldest first. */
  listOrderDeals(orderId: string): Promise<DealRow[]>;
  getDeposit(depositId: string): Promise<DepositRow | null>;
  getWithdrawalByClientId(userId: string, clientWithdrawalId: string): Promise<WithdrawalRow | null>;
  getWithdrawal(id: string): Promise<WithdrawalRow | null>;
  /** The withdrawals of `ids` that exist, in any order. */
  getWithdrawals(ids: readonly string[]): Promise<WithdrawalRow[]>;
  /** Withdrawals in one of `statuses`, oldest first, at most `limit`. */
  listWithdrawalsByStatus(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRow[]>;
  /** The sum of a user's non-failed withdrawals of `currency` created at or after `sinceMs` (base units). */
  withdrawnSince(userId: string, currency: string, sinceMs: number): Promise<bigint>;
  /** A fee hold by its (lower-case UUID) id, whatever its status. */
  getFeeHold(holdId: string): Promise<FeeHoldRow | null>;
  listDeposits(userId: string, page: number, pageSize: number): Promise<Page<DepositRow>>;
  listWithdrawals(userId: string, page: number, pageSize: number): Promise<Page<WithdrawalRow>>;
  walletFlows(): Promise<WalletFlows>;
  /** Candles of `interval` whose bucket overlaps [startMs, endMs], oldest first. */
  readCandles(pairCode: string, interval: Interval, startMs: number, endMs: number): Promise<Candle[]>;
  /** Deals after `sinceUs` plus the last one at or before it, oldest first. */
  recentDeals(pairCode: string, sinceUs: number): Promise<DealRow[]>;
  /** The newest `limit` deals of a pair, oldest first. */
  latestDeals(pairCode: string, limit: number): Promise<DealRow[]>;
  /** A page of a pair's deals, newest first. */
  dealsPage(pairCode: string, range: DealRange): Promise<DealRow[]>;
  /**
   * This store refusing every call at once (UnavailableError) while `up()` is false, and
   * reporting a lost connection seen by any call to `lost`, so the first sign of an outage stops
   * the writes.
   */
  guarded(up: () => boolean, lost: (error: unknown) => void): ExchangeStore;
}
