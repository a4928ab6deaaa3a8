// What the Swap handler costs in a real Ponder (PGlite), the pool_candle rollup included, read
// from Ponder's own /metrics (ponder_indexing_function_duration per event):
//   node scripts/bench/pool-swaps.ts [swaps=2000]
// A local chain is deployed and seeded, then `swaps` buys are mined six to a block on two stable
// pools, a minute of chain time apart: each block opens new minute candles (and hour and day
// ones as those roll over), the costly case of the rollup. Then a fresh Ponder indexes it all.
import { activity } from "../../support/ecosystem/activity.ts";
import {
  deployAndSeed,
  makeRunDir,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";

const swaps = Number(process.argv[2] ?? 2000);
const USERS = [4, 5, 6, 7, 8, 9];
const runDir = await makeRunDir("bench-pool-swaps");
const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(1);

try {
  const chain = await startChain(runDir);
  const deployed = await deployAndSeed(chain, runDir);
  const act = await activity(deployed.viem, deployed.deployment.contracts);
  const stablePools = deployed.summary!.tokens.filter((t) => t.side === 0).map((t) => t.pool);
  let t0 = performance.now();
  for (let sent = 0; sent < swaps; sent += USERS.length) {
    await act.inOneBlock(async (tx) => {
      for (const [i, user] of USERS.slice(0, swaps - sent).entries()) {
        await tx.buy(stablePools[(sent + i) % 2]!, user, 10n ** 6n);
      }
    });
    await chain.rpc("evm_increaseTime", [61]);
  }
  const head = await chain.blockNumber();
  console.log(`mined ${swaps} swaps up to block ${head} in ${seconds(t0)} s`);

  t0 = performance.now();
  const ponder = await startPonder({
    name: "bench",
    runDir,
    chain,
    deploymentFile: deployed.deploymentFile,
    backend: { kind: "pglite" },
  });
  await waitIndexed(ponder, head, 900_000);
  console.log(`Ponder started and indexed everything in ${seconds(t0)} s`);
  const metrics = await (await fetch(`${ponder.url}/metrics`)).text();
  /** A Prometheus series summed by one label: name{a="x",b="y"} value. */
  const series = (name: string, label: string) => {
    const out = new Map<string, number>();
    for (const [, labels, value] of metrics.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, "gm"))) {
      const key = Object.fromEntries([...labels!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))[label];
      if (key !== undefined) out.set(key, (out.get(key) ?? 0) + Number(value));
    }
    return out;
  };
  const report = (title: string, metric: string, label: string) => {
    const sums = series(`${metric}_sum`, label);
    const counts = series(`${metric}_count`, label);
    console.log(
      `\n${title}\n${"".padEnd(28)}${"count".padStart(8)}${"total ms".padStart(12)}${"mean µs".padStart(10)}`,
    );
    for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1])) {
      const sum = sums.get(key) ?? 0;
      console.log(
        `${key.padEnd(28)}${String(count).padStart(8)}${sum.toFixed(0).padStart(12)}${((sum / count) * 1000).toFixed(0).padStart(10)}`,
      );
    }
  };
  report("indexing functions (ponder_indexing_function_duration)", "ponder_indexing_function_duration", "event");
  report("indexing cache queries by table", "ponder_indexing_cache_query_duration", "table");
  report("indexing cache queries by method", "ponder_indexing_cache_query_duration", "method");
  await ponder.stop();
  await deployed.close();
  await chain.stop();
} finally {
  await stopAll();
  await removeRunDir(runDir);
}
