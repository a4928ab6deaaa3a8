import type { Context } from "ponder:registry";
import { ponder } from "ponder:registry";
import { holding, holderCount } from "ponder:schema";
import { zeroAddress } from "viem";
import { lc, observe } from "./shared.ts";

// Balances from every Transfer, so holder counts are exact: an account counts while its
// balance is above zero. The zero address (mint and burn side) is never a holder.
ponder.on("AgentToken:Transfer", async ({ event, context }) => {
  await observe(event, context);
  const { from, to, value } = event.args;
  if (value === 0n || from === to) return;
  const token = lc(event.log.address);
  if (from !== zeroAddress) await adjust(context, token, lc(from), -value);
  if (to !== zeroAddress) await adjust(context, token, lc(to), value);
});

async function adjust(context: Context, token: `0x${string}`, account: `0x${string}`, delta: bigint) {
  const row = await context.db.find(holding, { token, account });
  const before = row?.balance ?? 0n;
  const after = before + delta;
  if (row) await context.db.update(holding, { token, account }).set({ balance: after });
  else await context.db.insert(holding).values({ token, account, balance: after });
  const change = before === 0n && after > 0n ? 1 : before > 0n && after === 0n ? -1 : 0;
  if (change !== 0) {
    await context.db
      .insert(holderCount)
      .values({ token, holders: change })
      .onConflictDoUpdate((current) => ({ holders: current.holders + change }));
  }
}
