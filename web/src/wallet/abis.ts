/**
 * The contracts' ABIs as the rest of the platform reads them (indexer/abis.ts, generated from
 * the Hardhat artifacts by `npm run abis`), so a contract change reaches the web app's types.
 */
export { AgentPoolAbi, AgentSpawnerAbi, AgentTokenAbi, BoosterAbi, WorkerVotingAbi } from "../../../indexer/abis.ts";
