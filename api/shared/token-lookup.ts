import { eq } from "ponder";
import { notFound } from "../../lib/http/index.ts";
import { agentNft, agentToken, pool, worker } from "../../indexer/schema.ts";
import type { Db } from "../db.ts";

/**
 * An agent token named by a path parameter (its address, or its registry NFT id), with its
 * pool, worker and NFT rows: every token endpoint starts here, and an unknown token is a 404.
 */
export async function findToken(db: Db, ref: string) {
  const where = ref.startsWith("0x")
    ? eq(agentToken.address, ref.toLowerCase() as `0x${string}`)
    : eq(agentToken.nftId, BigInt(ref));
  const [row] = await db
    .select({ token: agentToken, pool, worker, nft: agentNft })
    .from(agentToken)
    .innerJoin(pool, eq(pool.address, agentToken.pool))
    .innerJoin(worker, eq(worker.id, agentToken.workerId))
    .innerJoin(agentNft, eq(agentNft.nftId, agentToken.nftId))
    .where(where)
    .limit(1);
  if (!row) throw notFound(`No agent token ${ref}`);
  return row;
}
