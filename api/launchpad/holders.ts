import { and, asc, count, desc, eq, gt, inArray } from "ponder";
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
  const [rows, [uncounted], [counted]] = await Promise.all([
    holderRows(db, token.address, query),
    // The accounts the holder count leaves out (indexer/holders.ts); the zero address has no row.
    db
      .select({ n: count() })
      .from(holding)
      .where(and(heldBy(token.address), inArray(holding.account, [p.address, BURN_ADDRESS]))),
    db.select({ holders: holderCount.holders }).from(holderCount).where(eq(holderCount.token, token.address)),
  ]);
  const labelOf = (account: `0x${string}`): Holder["label"] =>
    account === p.address ? "pool" : account === token.owner ? "creator" : account === BURN_ADDRESS ? "burn" : null;
  const items = rows.map((row) => ({
    address: row.account,
    balance: formatAmount(row.balance, TOKEN_DECIMALS),
    share: formatAmount((row.balance * SHARE_SCALE) / token.totalSupply, 18),
    label: labelOf(row.account),
  }));
  return toPage(items, query, (counted?.holders ?? 0) + (uncounted?.n ?? 0));
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
