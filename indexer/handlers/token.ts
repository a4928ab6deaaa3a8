import type { Context } from "ponder:registry";
import { ponder } from "ponder:registry";
import { agentToken, holding, holderCount } from "ponder:schema";
import { zeroAddress } from "viem";
import { isHolder } from "../holders.ts";
import { lc, observe } from "./shared.ts";

// Balances from every Transfer, so holder counts are exact: an account counts while its
// balance is above zero, unless it is not a holder at all (indexer/holders.ts). The zero address
// (mint and burn side) has no balance row.
ponder.on("AgentToken:Transfer", async ({ event, context }) => {
  await observe(event, context);
  const { from, to, value } = event.args;
  if (value === 0n || from === to) return;
  const token = lc(event.log.address);
  // Unknown during the spawn's own mints (AgentSpawned comes after them): AgentSpawned then
  // uncounts the pool's launch balance (uncountLaunchHolding).
  const pool = (await context.db.find(agentToken, { address: token }))?.pool;
  if (from !== zeroAddress) await adjust(context, token, lc(from), -value, pool);
  if (to !== zeroAddress) await adjust(context, token, lc(to), value, pool);
});

async function adjust(
  context: Context,
  token: `0x${string}`,
  account: `0x${string}`,
  delta: bigint,
  pool: `0x${string}` | undefined,
) {
  const row = await context.db.find(holding, { token, account });
  const before = row?.balance ?? 0n;
  const after = before + delta;
  if (row) await context.db.update(holding, { token, account }).set({ balance: after });
  else await context.db.insert(holding).values({ token, account, balance: after });
  if (!isHolder(account, pool)) return;
  const change = before === 0n && after > 0n ? 1 : before > 0n && after === 0n ? -1 : 0;
  if (change !== 0) await addHolders(context, token, change);
}

async function addHolders(context: Context, token: `0x${string}`, change: number) {
  await context.db
    .insert(holderCount)
    .values({ token, holders: change })
    .onConflictDoUpdate((current) => ({ holders: current.holders + change }));
}

/** Called by AgentSpawned, once the pool is known: its launch balance was counted as a holder. */
export async function uncountLaunchHolding(context: Context, token: `0x${string}`, pool: `0x${string}`) {
  const launch = await context.db.find(holding, { token, account: pool });
  if (launch && launch.balance > 0n) await addHolders(context, token, -1);
}
