export { SPAWN_ERRORS, VOTE_ERRORS, WRITE_ERRORS, writeError } from "./errors.ts";
export type { WriteErrorCode } from "./errors.ts";
export { revertToApiError } from "./revert.ts";
export {
  bodyProblem,
  parseSpawnBody,
  parseVoteBody,
  spawnBody,
  spawnResponse,
  voteBody,
  voteResponse,
} from "./schemas.ts";
export type { SpawnBody, VoteBody } from "./schemas.ts";
