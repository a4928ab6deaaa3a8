import type { Context } from "ponder:registry";
import { chainHead } from "ponder:schema";

/** The parts of a Ponder event every handler uses. */
export interface EventMeta {
  block: { number: bigint; timestamp: bigint };
  transaction: { hash: `0x${string}` };
  log: { logIndex: number; address: `0x${string}` };
}

/** Lower-case hex: one spelling of every address in the database. */
export const lc = (address: string) => address.toLowerCase() as `0x${string}`;

export const seconds = (event: EventMeta) => Number(event.block.timestamp);

/** A log's unique id: transaction hash and log index. */
export const logId = (event: EventMeta) => `${event.transaction.hash}-${event.log.logIndex}`;

/** Moves the chain head forward; every handler calls it first (see chain_head in the schema). */
export async function observe(event: EventMeta, context: Context) {
  const head = { blockNumber: event.block.number, timestamp: seconds(event) };
  await context.db
    .insert(chainHead)
    .values({ chainId: context.chain.id, ...head })
    .onConflictDoUpdate(head);
}
