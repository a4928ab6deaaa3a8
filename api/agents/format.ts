import type { ActionRow } from "./action-log-query.ts";
import type { ActionLogEntry, WorkerAction } from "./routes.ts";

/** Stored payloads are decoded JSON objects or null (indexer/payload.ts); anything else shows as null. */
export function jsonObjectOrNull(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export function toActionLogEntry(row: ActionRow): ActionLogEntry {
  return {
    entryId: Number(row.entryId),
    // Worker ids and NFT ids are different number spaces: the tier says which one this is.
    sourceAgentId: `${row.sourceTier}:${row.sourceAgentId}`,
    sourceTier: row.sourceTier as ActionLogEntry["sourceTier"],
    targetTokenId: Number(row.targetTokenId),
    actionType: row.actionType,
    actionPayload: jsonObjectOrNull(row.payload),
    reasonCode: row.reasonCode,
    blockNumber: Number(row.blockNumber),
    timestamp: row.timestamp,
    txHash: row.txHash,
  };
}

export function toWorkerAction(row: ActionRow): WorkerAction {
  return {
    txHash: row.txHash,
    actionType: row.actionType,
    params: jsonObjectOrNull(row.payload),
    reasonCode: row.reasonCode,
    blockNumber: Number(row.blockNumber),
    blockTimestamp: row.timestamp,
  };
}
