/**
 * The contracts' enums as the API names them: one mapping shared by the indexer (which stores
 * names, not numbers) and the API (which validates filters against the same names).
 */
export const POOL_SIDES = ["STABLE", "WRAPPED_NATIVE"] as const;
export type PoolSide = (typeof POOL_SIDES)[number];

/** IAgentRegistry.Tier: None, Worker, Scout, Queen. */
export const TIERS = ["none", "worker", "scout", "queen"] as const;
export type Tier = (typeof TIERS)[number];
export const SOURCE_TIERS = ["queen", "scout", "worker"] as const;

/** IAgentRegistry.WorkerStatus. */
export const WORKER_STATUSES = ["active", "idle", "suspended"] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** IAgentRegistry.MevProtection. */
export const MEV_PROTECTIONS = ["off", "private_relay", "batch_auction"] as const;

/** IWorkerVoting.Support. */
export const SUPPORTS = ["yes", "no", "abstain"] as const;

export function nameOf<T extends readonly string[]>(names: T, value: number | bigint): T[number] {
  const name = names[Number(value)];
  if (name === undefined) throw new Error(`unknown enum value ${value} for [${names.join(", ")}]`);
  return name;
}
