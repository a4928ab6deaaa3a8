// A scout in ten lines: it flags every worker trade it sees. Run: AGENT_KEY=0x... node agents/sdk/example.ts
import { connectAgent } from "./index.ts";

const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";
const agent = await connectAgent({ rpcUrl, privateKey: process.env.AGENT_KEY as `0x${string}` });
console.log("acting as", await agent.role());
agent.onAction(async ({ tier, actionType, targetNftId, entryId }) => {
  if (tier !== "worker" || actionType !== "trade") return;
  const payload = { signal: "trade_seen", cause: String(entryId) };
  const flag = await agent.record({ targetNftId, actionType: "flag", payload, reasonCode: "TRADE_SEEN" });
  console.log(`flagged entry ${entryId} as entry ${flag.entryId}`);
});
