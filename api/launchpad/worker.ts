import { recentActions } from "../agents/workers.ts";
import type { Db } from "../db.ts";
import { findToken } from "../shared/token-lookup.ts";
import { jsonObjectOrNull } from "../agents/format.ts";
import type { TokenWorker } from "./routes.ts";

export async function tokenWorker(db: Db, tokenRef: string): Promise<TokenWorker> {
  const { token, worker: w } = await findToken(db, tokenRef);
  const actions = await recentActions(db, token.nftId);
  return {
    worker: {
      id: Number(w.id),
      agentNftId: Number(w.agentNftId),
      status: w.status as TokenWorker["worker"]["status"],
      deployedAt: w.deployedAt,
    },
    recentActions: actions.map((a) => ({
      txHash: a.txHash,
      actionType: a.actionType,
      params: jsonObjectOrNull(a.payload),
      blockNumber: Number(a.blockNumber),
      blockTimestamp: a.timestamp,
    })),
    stats: { totalActions: w.totalActions, lastActiveAt: w.lastActiveAt },
  };
}
