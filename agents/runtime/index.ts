export { type AgentsConfig, type AgentsHandle, startAgents } from "./runtime.ts";
