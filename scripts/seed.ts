/** Seeds demo activity on the local chain recorded in deployments/<chainId>.json (`npm run seed`). */
import { network } from "hardhat";
import { readDeployment } from "../lib/deployments.ts";
import { seedDemo } from "./lib/seed-demo.ts";

const { viem } = await network.create();
const chainId = await (await viem.getPublicClient()).getChainId();
const deployment = await readDeployment(chainId);
// The exchange's hot wallet gets a float of the stable token, so the demo users' withdrawals go out.
const summary = await seedDemo(viem, deployment.contracts, { hotWallet: deployment.accounts.hotWallet });
console.log(
  `Seeded chain ${chainId}: ${summary.tokens.length} tokens (${summary.tokens.map((t) => t.symbol).join(", ")}), ` +
    `${summary.queens.length} queen, ${summary.scouts.length} scouts, ${summary.actions} actions ` +
    `(${summary.overrides} overrides), ${summary.proposals.length} proposals, ${summary.votes} votes, ` +
    `${summary.swaps} swaps, ${summary.boosts.length} boosts`,
);
if (summary.clockAheadSeconds > 0) {
  console.log(
    `Chain time is ${Math.round(summary.clockAheadSeconds / 3600)} h ahead of the wall clock: the node started too ` +
      "late to hold the seed's history in the past (npm start runs it on the demo network, which starts days back).",
  );
}
