import type { ActionView } from "./types.ts";

/**
 * The queen's directives as workers obey them. A directive is an ActionLog entry of the queen's
 * tier with actionType "directive" whose JSON payload names an instruction and an `until` (chain
 * seconds); it binds the target token's worker from when it is recorded until then.
 */

export type Instruction = "pause_trading" | "widen_band" | "reduce_exposure";

export interface Directive {
  readonly entryId: bigint;
  readonly instruction: Instruction;
  readonly from: number;
  /** The block it was recorded in: a worker that had seen this block knew of it. */
  readonly block: bigint;
  readonly until: number;
  readonly bandMultiplier: number;
  readonly targetInventoryBps: number | undefined;
}

const INSTRUCTIONS = new Set<string>(["pause_trading", "widen_band", "reduce_exposure"]);

export function parseDirective(action: ActionView): Directive | undefined {
  if (action.tier !== "queen" || action.actionType !== "directive" || action.payload === null) return undefined;
  const { instruction, until, bandMultiplier, targetInventoryBps } = action.payload;
  if (typeof instruction !== "string" || !INSTRUCTIONS.has(instruction) || typeof until !== "number") return undefined;
  return {
    entryId: action.entryId,
    instruction: instruction as Instruction,
    from: action.time,
    block: action.block,
    until,
    bandMultiplier:
      typeof bandMultiplier === "number" && bandMultiplier >= 1 && bandMultiplier <= 10 ? bandMultiplier : 1,
    targetInventoryBps:
      typeof targetInventoryBps === "number" && targetInventoryBps >= 0 && targetInventoryBps <= 10_000
        ? Math.floor(targetInventoryBps)
        : undefined,
  };
}

/** The directives on `targetNftId` in force at `at`. */
export function directivesInForce(actions: readonly ActionView[], targetNftId: bigint, at: number): Directive[] {
  const out: Directive[] = [];
  for (const action of actions) {
    if (action.targetNftId !== targetNftId) continue;
    const directive = parseDirective(action);
    if (directive && directive.from <= at && at < directive.until) out.push(directive);
  }
  return out;
}
