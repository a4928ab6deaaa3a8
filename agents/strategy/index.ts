export { netBatch } from "./batch.ts";
export { type Directive, directivesInForce, type Instruction, parseDirective } from "./directives.ts";
export {
  answeredCauses,
  type CapChange,
  DEFAULT_QUEEN_PARAMS,
  decideQueen,
  type QueenInput,
  type QueenIntent,
  type QueenParams,
  type SuspensionView,
} from "./queen.ts";
export { REASON_CODES, type ReasonCode, SIGNALS, type Signal } from "./reason-codes.ts";
export {
  DEFAULT_SCOUT_PARAMS,
  decideScout,
  flaggedKeys,
  type ScoutInput,
  type ScoutParams,
  signalsOfScout,
} from "./scout.ts";
export type * from "./types.ts";
export {
  coveringFlag,
  followsMove,
  moveSeen,
  type PoolReference,
  poolReference,
  pushPrice,
  referenceAnswer,
  type Twap,
  twap,
} from "./reference.ts";
export { DEFAULT_WORKER_PARAMS, decideWorker, type WorkerInput, type WorkerParams } from "./worker.ts";
