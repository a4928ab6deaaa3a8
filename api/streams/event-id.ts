import { z } from "zod";

/**
 * Where a stream event stands in chain order: [block number, index within the block in the
 * feed's order] (the log index of launchpad events; the entry id of actions, which the
 * ActionLog contract hands out in chain order). Keys compare as pairs.
 */
export type ChainKey = readonly [block: number, index: number];

export const compareKeys = (a: ChainKey, b: ChainKey) => a[0] - b[0] || a[1] - b[1];

/** The greatest key below `key`'s index in its block: reading "after" it includes `key` itself. */
export const keyBefore = ([block, index]: ChainKey): ChainKey => [block, index - 1];

/**
 * An event's SSE id: its key and the last 8 hex digits of its transaction hash,
 * `<block>-<index>-<tx8>`. The key orders the events; the hash tells two events apart that a
 * reorg put at the same key (the same entry id in another transaction), so a client's
 * Last-Event-ID never silently names an event that was withdrawn and replaced.
 */
export function eventIdOf(key: ChainKey, txHash: string): string {
  return `${key[0]}-${key[1]}-${txHash.slice(-8).toLowerCase()}`;
}

export const EVENT_ID_PATTERN = /^(\d{1,15})-(\d{1,15})-([0-9a-f]{8})$/;

export function keyOfEventId(id: string): ChainKey {
  const match = EVENT_ID_PATTERN.exec(id);
  if (!match) throw new Error(`not an event id: ${id}`);
  return [Number(match[1]), Number(match[2])];
}

/** A Last-Event-ID (header or query): an id as the stream sent it. */
export const eventIdParam = z
  .string()
  .regex(EVENT_ID_PATTERN, { error: "must be an event id as the stream sent it (<block>-<index>-<8 hex digits>)" })
  .meta({ pattern: EVENT_ID_PATTERN.source });
