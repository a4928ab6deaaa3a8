import { tallyOf } from "../agents/index.ts";
import { wholeUnitsNumber } from "../shared/units.ts";

/** IWorkerVoting.Tally as viem reads it. */
export interface ChainTally {
  readonly yesWeight: bigint;
  readonly noWeight: bigint;
  readonly abstainWeight: bigint;
  readonly quorumThreshold: bigint;
  readonly passingThresholdBps: number;
}

/** The vote answer's tally: the same JSON as the proposal reads show, from the chain's tally. */
export const tallyJson = (tally: ChainTally) => tallyOf(tally);

/** Vote weights in whole tokens, as SPEC.md's numbers (the proposal reads' convention). */
export const tokensAsNumber = (baseUnits: bigint): number => wholeUnitsNumber(baseUnits);
