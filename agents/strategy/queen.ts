import { directivesInForce, parseDirective } from "./directives.ts";
import { referenceAnswer } from "./reference.ts";
import type { ActionView, RecordIntent, Tier, WorkerStatus, WorkerView } from "./types.ts";

/**
 * The queen's decision: she reads the scouts' flags and the workers' trades and answers each
 * once. Flags become directives (pause after a price shock, a wider band in a volume spike or for
 * a new token, a lower inventory target after a whale move); a worker trade beyond its cap or
 * during a pause becomes an override. Each answer's payload names its `cause` (the entry id it
 * answers); she never answers a cause twice, which she learns from her own entries on the chain.
 *
 * An override suspends the worker on the chain (ActionLog) for the cool-off she states
 * (`overrideCoolOffSec`), the longest it can last should she stop. She lifts it herself with a
 * `resume` (its `cause`: the override) once it has held `restSec`, no pause directive is in force
 * on the token and no newer breach was overridden: the worker then trades again.
 */

export interface QueenParams {
  /** A price flag of at least this move pauses the worker. */
  readonly pauseOnMoveBps: number;
  readonly pauseSec: number;
  readonly widenSec: number;
  readonly bandMultiplier: number;
  readonly whaleInventoryBps: number;
  /** Flags and trades older than this are history, not news. */
  readonly memorySec: number;
  /** The cool-off her overrides state: the chain ends the suspension then, whatever happens. */
  readonly overrideCoolOffSec: number;
  /** How long her override holds a worker before she lifts it (when no pause is in force). */
  readonly restSec: number;
  /** A trade the worker recorded as decided before its cap changed may land this long after the change. */
  readonly capChangeGraceSec: number;
}

export const DEFAULT_QUEEN_PARAMS: QueenParams = {
  pauseOnMoveBps: 1_000,
  pauseSec: 120,
  widenSec: 600,
  bandMultiplier: 2,
  whaleInventoryBps: 2_500,
  memorySec: 3_600,
  overrideCoolOffSec: 3_600,
  restSec: 300,
  capChangeGraceSec: 60,
};

/** An override's suspension of a worker as the registry holds it (only those with a tier). */
export interface SuspensionView {
  readonly byTier: Tier;
  readonly byAgentId: bigint;
  /** Chain seconds: the suspension is over from then on, with or without a resume. */
  readonly until: number;
  readonly resumeTo: WorkerStatus;
}

/** A worker's slippage cap changed (a passed vote, the admin) in `block`, from `previousCapBps`. */
export interface CapChange {
  readonly previousCapBps: number;
  readonly block: bigint;
  /** Chain seconds of `block`. */
  readonly time: number;
}

/** What the queen records: an override states its cool-off; a resume lifts an override. */
export interface QueenIntent extends Omit<RecordIntent, "actionType"> {
  readonly actionType: RecordIntent["actionType"] | "resume";
  readonly coolOffSec?: number;
}

export interface QueenInput {
  readonly now: number;
  /** Recent action-log entries of every agent (oldest first). */
  readonly actions: readonly ActionView[];
  readonly workers: ReadonlyMap<bigint, WorkerView>;
  /** Entry ids the queen has answered already (from her entries on the chain and pending intents). */
  readonly answered: ReadonlySet<string>;
  /** Override suspensions by worker id, as the registry holds them (absent: none). */
  readonly suspensions?: ReadonlyMap<bigint, SuspensionView>;
  /** The last change of each worker's slippage cap, by worker id. */
  readonly capChanges?: ReadonlyMap<bigint, CapChange>;
  readonly params?: QueenParams;
}

export function decideQueen(input: QueenInput): QueenIntent[] {
  const params = input.params ?? DEFAULT_QUEEN_PARAMS;
  const { now } = input;
  const out: QueenIntent[] = [];
  const answer = (cause: ActionView, intent: Omit<QueenIntent, "kind" | "targetNftId">) => {
    const key = cause.entryId.toString();
    if (input.answered.has(key) || out.some((i) => i.payload.cause === key)) return;
    out.push({ kind: "record", targetNftId: cause.targetNftId, ...intent, payload: { ...intent.payload, cause: key } });
  };
  const directive = (cause: ActionView, reasonCode: string, payload: Record<string, unknown>) =>
    answer(cause, { actionType: "directive", reasonCode, payload });

  for (const action of input.actions) {
    if (action.time < now - params.memorySec) continue;
    if (action.tier === "scout" && action.actionType === "flag") {
      const evidence = (action.payload?.evidence ?? {}) as Record<string, unknown>;
      switch (action.payload?.signal) {
        case "price": {
          const change = typeof evidence.changeBps === "number" ? Math.abs(evidence.changeBps) : 0;
          if (change >= params.pauseOnMoveBps)
            directive(action, "PRICE_SHOCK", {
              instruction: "pause_trading",
              until: now + params.pauseSec,
              changeBps: change,
            });
          break;
        }
        case "volume":
          directive(action, "VOLUME_SURGE", {
            instruction: "widen_band",
            bandMultiplier: params.bandMultiplier,
            until: now + params.widenSec,
          });
          break;
        case "spawn":
          directive(action, "LAUNCH_WATCH", {
            instruction: "widen_band",
            bandMultiplier: params.bandMultiplier,
            until: now + params.widenSec,
          });
          break;
        case "whale":
          directive(action, "WHALE_EXPOSURE", {
            instruction: "reduce_exposure",
            targetInventoryBps: params.whaleInventoryBps,
            until: now + params.widenSec,
          });
          break;
        case "reference":
          // A worker's reference moved and the price did not follow: see reference.ts.
          directive(action, "REFERENCE_SHIFT", referenceAnswer(evidence, now));
          break;
        case "slippage":
          if (decidedUnderTheOldCap(input, action.targetNftId, evidence, params)) break;
          answer(action, {
            actionType: "override",
            reasonCode: "CAP_BREACH",
            coolOffSec: params.overrideCoolOffSec,
            payload: { overrides: "trade", action: "suspend", coolOffSec: params.overrideCoolOffSec, evidence },
          });
          break;
      }
    }
    if (action.tier === "worker" && (action.actionType === "trade" || action.actionType === "rebalance")) {
      // A worker that says which block it decided on is held only to the directives it could see.
      const observed = action.payload?.observedBlock;
      const seen = typeof observed === "string" && /^\d+$/.test(observed) ? BigInt(observed) : undefined;
      const paused = input.actions.some((a) => {
        const d = a.targetNftId === action.targetNftId ? parseDirective(a) : undefined;
        if (d?.instruction !== "pause_trading" || action.time >= d.until) return false;
        return seen !== undefined ? d.block <= seen : d.from < action.time;
      });
      if (paused)
        answer(action, {
          actionType: "override",
          reasonCode: "DIRECTIVE_BREACH",
          coolOffSec: params.overrideCoolOffSec,
          payload: {
            overrides: action.actionType,
            action: "suspend",
            coolOffSec: params.overrideCoolOffSec,
            entryId: action.entryId.toString(),
            txHash: action.txHash,
          },
        });
    }
  }
  for (const [workerId, suspension] of input.suspensions ?? []) {
    const worker = input.workers.get(workerId);
    // Hers (a scout's is the scout's to lift), still in force (an ended one needs no resume).
    if (suspension.byTier !== "queen" || worker?.status !== "suspended" || suspension.until <= now) continue;
    const token = worker.agentNftId;
    if (out.some((i) => i.targetNftId === token && i.actionType === "override")) continue;
    // Her newest override on the token set the suspension (a scout's cannot replace hers);
    // without it in view, the cool-off ends the suspension.
    let override: ActionView | undefined;
    for (const a of input.actions)
      if (a.targetNftId === token && a.tier === "queen" && a.actionType === "override") override = a;
    if (!override || now < override.time + params.restSec) continue;
    if (directivesInForce(input.actions, token, now).some((d) => d.instruction === "pause_trading")) continue;
    answer(override, {
      actionType: "resume",
      reasonCode: "OVERRIDE_LIFTED",
      payload: { resumes: workerId.toString(), heldSec: now - override.time },
    });
  }
  return out;
}

/**
 * A slippage flag on a swap the worker recorded as decided before its cap was lowered, within the
 * old cap and landing just after the change, flags no breach: the worker kept the cap it knew.
 * Everything it relies on but the decision's block is chain fact (the swap's impact, the old cap,
 * when it changed), so a worker claiming an old block gains at most the old cap for a minute.
 */
function decidedUnderTheOldCap(
  input: QueenInput,
  token: bigint,
  evidence: Record<string, unknown>,
  params: QueenParams,
): boolean {
  const { workerId, impactBps, txHashes } = evidence;
  if (typeof workerId !== "string" || !/^\d+$/.test(workerId) || typeof impactBps !== "number") return false;
  const change = input.capChanges?.get(BigInt(workerId));
  if (!change || impactBps > change.previousCapBps || !Array.isArray(txHashes)) return false;
  return input.actions.some((a) => {
    if (a.tier !== "worker" || a.targetNftId !== token || !txHashes.includes(a.payload?.swapTx)) return false;
    const observed = a.payload?.observedBlock;
    return (
      typeof observed === "string" &&
      /^\d+$/.test(observed) &&
      BigInt(observed) < change.block &&
      a.time <= change.time + params.capChangeGraceSec
    );
  });
}

/** Causes the queen (NFT `queenNftId`) has answered: the `cause` of her entries. */
export function answeredCauses(actions: readonly ActionView[], queenNftId: bigint): Set<string> {
  const causes = new Set<string>();
  for (const a of actions)
    if (a.tier === "queen" && a.sourceAgentId === queenNftId && typeof a.payload?.cause === "string")
      causes.add(a.payload.cause);
  return causes;
}
