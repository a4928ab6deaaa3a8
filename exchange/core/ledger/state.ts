import type { Account, Balance, Entry, Hold, LedgerState } from "./types.ts";

// Operations (wallet.ts, orders.ts) are pure: they read the state and return an Entry
// or a rejection. applyEntry is the one place the state changes. It mutates in place,
// as the book does: copying every balance per trade would cost O(accounts), and a
// rejected operation never reaches it, so a failure leaves the state untouched.

const ZERO: Balance = { available: 0n, locked: 0n };

export function createLedger(): LedgerState {
  return { balances: new Map(), holds: new Map(), fees: new Map(), burned: new Map(), supply: new Map() };
}

export function supplyOf(state: LedgerState, currency: string): bigint {
  return state.supply.get(currency) ?? 0n;
}

/**
 * Recomputes supply from balances and fee totals, after they were loaded rather than applied.
 * Burned fees are not part of it: they left the exchange.
 */
export function recountSupply(state: LedgerState): void {
  state.supply.clear();
  const add = (currency: string, amount: bigint) => state.supply.set(currency, supplyOf(state, currency) + amount);
  for (const own of state.balances.values())
    for (const [currency, balance] of own) add(currency, balance.available + balance.locked);
  for (const [currency, amount] of state.fees) add(currency, amount);
}

export function balanceOf(state: LedgerState, userId: string, currency: string): Balance {
  return state.balances.get(userId)?.get(currency) ?? ZERO;
}

export function holdOf(state: LedgerState, orderId: string): Hold | undefined {
  return state.holds.get(orderId);
}

export function feesCollected(state: LedgerState, currency: string): bigint {
  return state.fees.get(currency) ?? 0n;
}

/** What settled fee holds burned of `currency` (it left the exchange). */
export function burnedTotal(state: LedgerState, currency: string): bigint {
  return state.burned.get(currency) ?? 0n;
}

/** The key of a fee hold among the holds: order ids are UUIDs, so `fee:` never names an order. */
export function feeHoldKey(holdId: string): string {
  return `fee:${holdId}`;
}

/** The key in `holds` of the hold a locked or fee-hold posting moves. */
function holdKeyOf(account: Extract<Account, { kind: "locked" | "fee-hold" }>): string {
  return account.kind === "locked" ? account.orderId : feeHoldKey(account.holdId);
}

/**
 * Applies an entry atomically. An unbalanced entry or one that would drive any balance,
 * hold or burned total negative is a bug in the operation that built it, so it throws before
 * changing anything.
 */
export function applyEntry(state: LedgerState, entry: Entry): void {
  const perCurrency = new Map<string, bigint>();
  const available = new Map<string, { userId: string; currency: string; delta: bigint }>();
  const holds = new Map<string, { userId: string; currency: string; delta: bigint }>();
  const burned = new Map<string, bigint>();
  for (const { account, currency, delta } of entry.postings) {
    perCurrency.set(currency, (perCurrency.get(currency) ?? 0n) + delta);
    if (account.kind === "available")
      accumulate(available, `${account.userId}\u0000${currency}`, account.userId, currency, delta);
    if (account.kind === "locked" || account.kind === "fee-hold")
      accumulate(holds, holdKeyOf(account), account.userId, currency, delta);
    if (account.kind === "burned") burned.set(currency, (burned.get(currency) ?? 0n) + delta);
  }
  for (const [currency, sum] of perCurrency) {
    if (sum !== 0n) throw new Error(`${entry.kind} ${entry.ref}: ${currency} postings sum to ${sum}, not 0`);
  }
  for (const { userId, currency, delta } of available.values()) {
    if (balanceOf(state, userId, currency).available + delta < 0n) {
      throw new Error(`${entry.kind} ${entry.ref}: available ${currency} of ${userId} would go negative`);
    }
  }
  for (const [currency, delta] of burned) {
    if (burnedTotal(state, currency) + delta < 0n)
      throw new Error(`${entry.kind} ${entry.ref}: burned ${currency} would go negative`);
  }
  for (const [orderId, { userId, currency, delta }] of holds) {
    const hold = state.holds.get(orderId);
    if (hold !== undefined && (hold.userId !== userId || hold.currency !== currency)) {
      throw new Error(`${entry.kind} ${entry.ref}: hold ${orderId} belongs to ${hold.userId} in ${hold.currency}`);
    }
    if ((hold?.amount ?? 0n) + delta < 0n)
      throw new Error(`${entry.kind} ${entry.ref}: hold ${orderId} would go negative`);
  }

  for (const { userId, currency, delta } of available.values()) {
    const balance = balanceOf(state, userId, currency);
    setBalance(state, userId, currency, { available: balance.available + delta, locked: balance.locked });
  }
  for (const [orderId, { userId, currency, delta }] of holds) {
    const amount = (state.holds.get(orderId)?.amount ?? 0n) + delta;
    if (amount === 0n) state.holds.delete(orderId);
    else state.holds.set(orderId, { orderId, userId, currency, amount });
    const balance = balanceOf(state, userId, currency);
    setBalance(state, userId, currency, { available: balance.available, locked: balance.locked + delta });
  }
  for (const { account, currency, delta } of entry.postings) {
    if (account.kind === "fees") state.fees.set(currency, feesCollected(state, currency) + delta);
    if (account.kind === "external") state.supply.set(currency, supplyOf(state, currency) - delta);
    if (account.kind === "burned") {
      state.burned.set(currency, burnedTotal(state, currency) + delta);
      state.supply.set(currency, supplyOf(state, currency) - delta);
    }
  }
}

function accumulate(
  into: Map<string, { userId: string; currency: string; delta: bigint }>,
  key: string,
  userId: string,
  currency: string,
  delta: bigint,
): void {
  const existing = into.get(key);
  into.set(key, { userId, currency, delta: (existing?.delta ?? 0n) + delta });
}

function setBalance(state: LedgerState, userId: string, currency: string, balance: Balance): void {
  let own = state.balances.get(userId);
  if (own === undefined) {
    own = new Map();
    state.balances.set(userId, own);
  }
  own.set(currency, balance);
}
