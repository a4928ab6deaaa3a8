/**
 * Every `reasonCode` the reference agents record, with what it means. The README lists the same
 * table; an agent written with the SDK may use its own codes (the contract allows any string).
 */
export const REASON_CODES = {
  // Workers
  PRICE_ABOVE_BAND: "worker sold: the pool price was above the band around the reference",
  PRICE_BELOW_BAND: "worker bought: the pool price was below the band around the reference",
  PRICE_SIGNAL_REVERT: "worker traded back to the reference on a subscribed price signal",
  INVENTORY_DRIFT: "worker rebalanced: its token share of inventory drifted from the target",
  BATCH_AUCTION: "worker sent its netted trades of a batch window as one swap",
  // Scouts
  PRICE_MOVE: "scout: the pool price moved beyond the threshold within the window",
  VOLUME_SPIKE: "scout: volume in the window exceeded the multiple of the usual",
  NEW_SPAWN: "scout: a new agent token was spawned",
  WHALE_MOVE: "scout: a transfer of at least the threshold share of supply",
  SLIPPAGE_BREACH: "scout: a worker's swap had a price impact beyond its slippage cap",
  REFERENCE_MOVE: "scout: a worker's reference moved beyond its cap and the price went back: a trade would follow it",
  // Queen
  PRICE_SHOCK: "queen: pause a worker after a large price move",
  VOLUME_SURGE: "queen: widen a worker's band during a volume spike",
  LAUNCH_WATCH: "queen: widen a new token's band while its price is discovered",
  WHALE_EXPOSURE: "queen: lower a worker's inventory target after a whale move",
  CAP_BREACH: "queen override: a worker traded beyond its slippage cap",
  DIRECTIVE_BREACH: "queen override: a worker traded while a pause directive was active",
  REFERENCE_SHIFT: "queen: widen a worker's band over a flagged reference move until it leaves the window",
  OVERRIDE_LIFTED: "queen: lifts her override of a worker once it held its rest and no pause is in force",
} as const;

export type ReasonCode = keyof typeof REASON_CODES;

/** Signal names scouts publish (in each flag's payload) and workers subscribe to. */
export const SIGNALS = ["price", "volume", "spawn", "whale", "slippage", "reference"] as const;
export type Signal = (typeof SIGNALS)[number];
