export { type AgentsConfig, type AgentsHandle, startAgents } from "./runtime.ts";
export { execute, type IntentSpec, type Operator } from "./execute.ts";
export type { IntentRow } from "./intents.ts";
export { openOperator } from "./operator.ts";
