import { and, asc, desc, eq, gt } from "ponder";
import { BURN_ADDRESS } from "../../indexer/holders.ts";
import { holderCount, holding } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";
import { offsetOf, type Page, type PageQuery, toPage } from "../shared/pagination.ts";
import { findToken } from "../shared/token-lookup.ts";
import { formatAmount, TOKEN_DECIMALS } from "../shared/units.ts";
import type { Holder } from "./routes.ts";

const SHARE_SCALE = 10n ** 18n;

const heldBy = (token: `0x${string}`) => and(eq(holding.token, token), gt(holding.balance, 0n));

/**
 * A page of a token's holders: every account with a balance, the pool and the burn address
 * included, balance descending then address ascending. The page walks the (token, balance desc,
 * account) index; the total is the holder count the indexer keeps plus the pool and the burn
 * address when they hold tokens, so no page counts rows.
 */
export async function tokenHolders(db: Db, tokenRef: string, query: PageQuery): Promise<Page<Holder>> {
  const { token, pool: p } = await findToken(db, tokenRef);
  // The accounts the holder count leaves out (indexer/holders.ts; the zero address has no row),
  // each read by its primary key: a filter on the account would let the planner walk the rank
  // index through every holder instead.
  const balanceOf = (account: `0x${string}`) =>
    db
      .select({ balance: holding.balance })
      .from(holding)
      .where(and(eq(holding.token, token.address), eq(holding.account, account)));
  const [rows, [counted], ...uncounted] = await Promise.all([
    holderRows(db, token.address, query),
    db.select({ holders: holderCount.holders }).from(holderCount).where(eq(holderCount.token, token.address)),
    balanceOf(p.address),
    balanceOf(BURN_ADDRESS),
  ]);
  const listedBeside = uncounted.filter(([row]) => row !== undefined && row.balance > 0n).length;
  const labelOf = (account: `0x${string}`): Holder["label"] =>
    account === p.address ? "pool" : account === token.owner ? "creator" : account === BURN_ADDRESS ? "burn" : null;
  const items = rows.map((row) => ({
    address: row.account,
    balance: formatAmount(row.balance, TOKEN_DECIMALS),
    share: formatAmount(token.totalSupply > 0n ? (row.balance * SHARE_SCALE) / token.totalSupply : 0n, 18),
    label: labelOf(row.account),
  }));
  return toPage(items, query, (counted?.holders ?? 0) + listedBeside);
}

/** A page of a token's balances in list order (exported for the query-plan test). */
export const holderRows = (db: Db, token: `0x${string}`, query: PageQuery) =>
  db
    .select({ account: holding.account, balance: holding.balance })
    .from(holding)
    .where(heldBy(token))
    .orderBy(desc(holding.balance), asc(holding.account))
    .limit(query.pageSize)
    .offset(offsetOf(query));
