export { writesApi, writesNotConfigured } from "./app.ts";
export type { WriteOperations, WritesApiOptions, WritesRuntime } from "./app.ts";
export type { WriteOutcome } from "./outcome.ts";
export { proposeRoute, spawnRoute, voteRoute, writeRoutes } from "./routes.ts";
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
export { startWrites } from "./start.ts";
export type { StartedWrites, WritesConfig } from "./start.ts";
export { startWritesThread } from "./thread/start.ts";
export type { WritesThreadOptions } from "./thread/start.ts";
