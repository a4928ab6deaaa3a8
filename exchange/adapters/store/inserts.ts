import { CURRENCY_COLUMNS, currencyOf } from "./rows.ts";
import type {
  ApiKeyRow,
  CommissionRow,
  CurrencyRow,
  Db,
  PairRow,
  Queryable,
  TokenListingRows,
  UserRow,
  WebSessionRow,
} from "./types.ts";

// Writes outside the trading path: reference data (operator and demo set-up), users, keys and
// web sessions.
// Each is one statement, committed before the caller answers.

export async function insertCurrency(db: Queryable, row: CurrencyRow): Promise<void> {
  await db.query(
    `insert into currencies (code, name, decimals, can_deposit, can_withdraw, min_withdraw, max_withdraw, unified_cryptoasset_id, adapter_code, position,
       contract_address, daily_withdraw_limit, withdraw_approval_threshold)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.code,
      row.name,
      row.decimals,
      row.canDeposit,
      row.canWithdraw,
      row.minWithdraw,
      row.maxWithdraw,
      row.unifiedCryptoassetId,
      row.adapterCode,
      row.position,
      row.contractAddress ?? null,
      row.dailyWithdrawLimit ?? null,
      row.withdrawApprovalThreshold ?? null,
    ],
  );
}

export async function upsertPair(db: Queryable, row: PairRow): Promise<void> {
  await db.query(
    `insert into pairs (code, base, quote, digits_price, digits_amount, min_quote_amount, active) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (code) do update set digits_price = excluded.digits_price, digits_amount = excluded.digits_amount,
       min_quote_amount = excluded.min_quote_amount, active = excluded.active`,
    [row.code, row.base, row.quote, row.digitsPrice, row.digitsAmount, row.minQuoteAmount, row.active],
  );
}

export async function insertCommission(db: Queryable, row: CommissionRow): Promise<void> {
  await db.query(
    `insert into commissions (commission_id, currency_code, currency_pair_code, currency_adapter_code, percent, minimum, commission_currency_code,
       commission_type_code, min_level)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      row.commissionId,
      row.currencyCode,
      row.currencyPairCode,
      row.currencyAdapterCode,
      row.percent,
      row.minimum,
      row.commissionCurrencyCode,
      row.commissionTypeCode,
      row.minLevel,
    ],
  );
}

export async function revokeApiKey(db: Queryable, publicKey: string, atMs: number): Promise<boolean> {
  const rows = await db.query(
    `update api_keys set revoked_at = $2 where public_key = $1 and revoked_at is null returning public_key`,
    [publicKey, atMs],
  );
  return rows.length > 0;
}

/** Records keys' last uses; a later time never goes back to an earlier one. */
export async function touchApiKeys(db: Queryable, uses: readonly { publicKey: string; atMs: number }[]): Promise<void> {
  for (const use of uses) {
    await db.query(`update api_keys set last_used_at = greatest(coalesce(last_used_at, 0), $2) where public_key = $1`, [
      use.publicKey,
      use.atMs,
    ]);
  }
}

export async function insertWebSession(db: Queryable, row: WebSessionRow): Promise<void> {
  await db.query(
    `insert into web_sessions (token_hash, user_id, created_at, expires_at, revoked_at) values ($1, $2, $3, $4, $5)`,
    [row.tokenHash, row.userId, row.createdAt, row.expiresAt, row.revokedAt],
  );
}

export async function revokeWebSession(db: Queryable, tokenHash: string, atMs: number): Promise<void> {
  await db.query(`update web_sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null`, [
    tokenHash,
    atMs,
  ]);
}

export async function insertUser(db: Queryable, row: UserRow): Promise<void> {
  await db.query(`insert into users (id, level, address, created_at) values ($1, $2, $3, $4)`, [
    row.id,
    row.level,
    row.address,
    row.createdAt,
  ]);
}

export async function insertApiKey(db: Queryable, row: ApiKeyRow): Promise<void> {
  await db.query(
    `insert into api_keys (public_key, user_id, private_key_encrypted, created_at, revoked_at) values ($1, $2, $3, $4, $5)`,
    [row.publicKey, row.userId, row.privateKeyEncrypted, row.createdAt, row.revokedAt],
  );
}

/**
 * A spawned token's listing in one transaction: its currency (bound to the token's contract),
 * pair and commission rows; or, when a currency with its code or its contract is already
 * stored, nothing written and that currency returned (the application decides what it means).
 */
export async function insertListing(
  db: Db,
  rows: TokenListingRows,
): Promise<{ inserted: boolean; existing: CurrencyRow[] }> {
  return db.transaction(async (tx) => {
    const existing = await tx.query(
      `select ${CURRENCY_COLUMNS} from currencies where code = $1 or contract_address = $2 order by code for update`,
      [rows.currency.code, rows.currency.contractAddress],
    );
    if (existing.length > 0) return { inserted: false, existing: existing.map(currencyOf) };
    await insertCurrency(tx, rows.currency);
    await upsertPair(tx, rows.pair);
    for (const row of rows.commissions) await insertCommission(tx, row);
    return { inserted: true, existing: [] };
  });
}
