import { recentActions } from "../agents/workers.ts";
import type { Db } from "../db.ts";
import { findToken } from "../shared/token-lookup.ts";
import { workerStateAt } from "../shared/worker-status.ts";
import { jsonObjectOrNull } from "../agents/format.ts";
import type { TokenWorker } from "./routes.ts";

export async function tokenWorker(db: Db, now: number, tokenRef: string): Promise<TokenWorker> {
  const { token, worker: w } = await findToken(db, tokenRef);
  const actions = await recentActions(db, token.nftId);
  return {
    worker: {
      id: Number(w.id),
      agentNftId: Number(w.agentNftId),
      ...workerStateAt(w, now),
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
