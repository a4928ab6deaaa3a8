export { writesApi, writesNotConfigured } from "./http/app.ts";
export type { WritesApiOptions, WritesRuntime } from "./http/app.ts";
export { parseSpawnBody } from "./http/body.ts";
export { operatorRoute, proposeRoute, spawnRoute, voteRoute, writeRoutes } from "./http/routes.ts";
export type { WriteOperations } from "./service.ts";
export {
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
