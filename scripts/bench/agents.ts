/**
 * `npm run bench:agents`: how fast the agent runtime records actions, against raw
 * `ActionLog.record` transactions sent by this script in the same run, and how long a recorded
 * action takes to show in the read API.
 *
 * 1. A Hardhat node on a free port, the ecosystem deployed and seeded, Ponder on PGlite polling
 *    the chain every BENCH_AGENTS_POLL_MS (1000, the indexer's default), all in a temp dir.
 * 2. Rounds alternate direct, runtime, direct, runtime (BENCH_AGENTS_ROUNDS pairs), each of
 *    BENCH_AGENTS_ACTIONS flags with BENCH_AGENTS_CONCURRENCY in flight, each once the indexer
 *    has caught up with the round before:
 *    - direct: scout #2's key (Hardhat account #12), `record` signed here with consecutive nonces,
 *      gas estimated per call, sent raw, receipts polled every 50 ms: the least a script can do;
 *    - runtime: scout #1 (account #11) through the runtime's own path (agents/runtime): each flag an
 *      intent journalled in PGlite, then execute(): the write row, gas estimate, the relayer's
 *      nonce lock, signature, journal row before broadcast, receipt, the intent settled.
 * 3. Lag: once the indexer has caught up with those bursts, BENCH_AGENTS_LAG_ACTIONS runtime
 *    flags one every BENCH_AGENTS_LAG_GAP_MS (250: the runtime's pace in use is a few a second),
 *    each timed from its receipt to its entry in /api/agents/action-logs (polled every 50 ms).
 * Target: runtime >= 0.8x direct actions/s; lag p99 <= 2 indexer polling intervals.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPublicClient,
  encodeFunctionData,
  http,
  type PublicClient,
  stringToHex,
  TransactionReceiptNotFoundError,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { execute, openOperator } from "../../agents/runtime/index.ts";
import { ActionLogAbi } from "../../indexer/abis.ts";
import {
  deployAndSeed,
  type Ponder,
  pgQuery,
  startChain,
  startPonder,
  stopAll,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { span, traceRequest } from "../../lib/stage-trace.ts";
import { relayerClients } from "../../relayer/index.ts";
import { percentile } from "./indexer/stats.ts";
import { envInt } from "./env.ts";

const int = envInt;
const ACTIONS = int("BENCH_AGENTS_ACTIONS", 200);
const CONCURRENCY = int("BENCH_AGENTS_CONCURRENCY", 16);
const ROUNDS = int("BENCH_AGENTS_ROUNDS", 2);
const POLL_MS = int("BENCH_AGENTS_POLL_MS", 1000);
const LAG_ACTIONS = int("BENCH_AGENTS_LAG_ACTIONS", 60);
const LAG_GAP_MS = int("BENCH_AGENTS_LAG_GAP_MS", 250);
const TARGET = 0.8;
const JOURNAL_SCHEMA = `bench_agents_${process.pid}`;
const MNEMONIC = "test test test test test test test test test test test junk";

const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const tmp = await mkdtemp(join(tmpdir(), "bench-agents-"));
let ponder: Ponder | undefined;

try {
  log(
    `actions ${ACTIONS} per round, ${CONCURRENCY} in flight, ${ROUNDS} round pairs, indexer polling every ${POLL_MS} ms`,
  );
  const chain = await startChain(tmp);
  const deployed = await deployAndSeed(chain, tmp);
  const contracts = deployed.deployment.contracts;
  // Each path records on its own token, so the read API can be watched for the runtime's alone.
  const runtimeTarget = deployed.summary!.tokens[0]!.nftId;
  const directTarget = deployed.summary!.tokens[1]!.nftId;
  ponder = await startPonder({
    name: "bench-agents",
    runDir: tmp,
    chain,
    deploymentFile: deployed.deploymentFile,
    backend: { kind: "pglite" },
    env: { POLLING_INTERVAL_MS: String(POLL_MS) },
  });
  await waitIndexed(ponder, await chain.blockNumber(), 180_000);
  log("chain seeded, Ponder caught up");
  const client = createPublicClient({ transport: http(chain.url, { batch: { wait: 0 } }) }) as PublicClient;
  const genesis = await client.getBlock({ blockNumber: 0n });
  const runtimeAccount = mnemonicToAccount(MNEMONIC, { addressIndex: 11 });
  const directAccount = mnemonicToAccount(MNEMONIC, { addressIndex: 12 });
  const { op, sql } = await openOperator({
    name: "bench-scout",
    account: runtimeAccount,
    client,
    clients: relayerClients({ rpcUrl: chain.url, rpcTimeoutMs: 10_000 }),
    chainId: 31337,
    genesisHash: genesis.hash,
    actionLog: contracts.ActionLog,
    // The journal on PostgreSQL with DATABASE_URL (a schema of its own), else PGlite in the temp dir.
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: join(tmp, "agents"),
    schema: JOURNAL_SCHEMA,
    dbTimeoutMs: 10_000,
    receiptTimeoutMs: 30_000,
    pollMs: 50,
    log,
  });

  const payloadOf = (path: string, i: number, round: number) => ({ signal: "bench", path, round, i });
  const dataOf = (payload: object) =>
    encodeFunctionData({
      abi: ActionLogAbi,
      functionName: "record",
      args: [directTarget, "flag", stringToHex(JSON.stringify(payload)), "BENCH"],
    });

  /** Runs `task(i)` for i < count with CONCURRENCY in flight; returns the seconds it took. */
  async function pool(task: (i: number) => Promise<void>, count = ACTIONS): Promise<number> {
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < count; i = next++) await task(i);
      }),
    );
    return (performance.now() - start) / 1000;
  }

  let directNonce = await client.getTransactionCount({ address: directAccount.address, blockTag: "pending" });
  let broadcastChain: Promise<unknown> = Promise.resolve();
  async function directRound(round: number, count = ACTIONS): Promise<number> {
    const fees = await client.estimateFeesPerGas();
    return pool(async (i) => {
      const data = dataOf(payloadOf("direct", i, round));
      const gas = await client.estimateGas({ account: directAccount.address, to: contracts.ActionLog, data });
      const nonce = directNonce++;
      const raw = await directAccount.signTransaction({
        type: "eip1559",
        chainId: 31337,
        nonce,
        to: contracts.ActionLog,
        data,
        gas: (gas * 12n) / 10n,
        ...fees,
      });
      // In nonce order, as a node that refuses nonce gaps needs (the runtime's relayer does the same).
      const sent = broadcastChain.then(() => client.sendRawTransaction({ serializedTransaction: raw }));
      broadcastChain = sent.catch(() => {});
      const hash = await sent;
      for (;;) {
        const receipt = await client.getTransactionReceipt({ hash }).catch((error) => {
          if (error instanceof TransactionReceiptNotFoundError) return undefined;
          throw error;
        });
        if (receipt) return;
        await sleep(50);
      }
    }, count);
  }

  const minedAt = new Map<string, number>();
  async function runtimeRound(round: number, count = ACTIONS): Promise<number> {
    return pool(async (i) => void (await runtimeRecord(round, i)), count);
  }

  /** One flag through the runtime's path: the intent journalled, then execute() to its receipt. */
  function runtimeRecord(round: number, i: number): Promise<string> {
    return traceRequest("agent-record", () => runtimeRecordTraced(round, i));
  }

  async function runtimeRecordTraced(round: number, i: number): Promise<string> {
    const id = `bench:${round}:${i}`;
    const payload = payloadOf("runtime", i, round);
    const row = await span("intentAdd", () =>
      op.intents.add({
        id,
        agent: op.name,
        tick: round,
        spec: JSON.stringify({
          kind: "record",
          targetNftId: runtimeTarget.toString(),
          actionType: "flag",
          reasonCode: "BENCH",
          payload,
        }),
        state: "open",
      }),
    );
    const outcome = await execute(op, row!, { fresh: true });
    if (outcome !== "done") throw new Error(`${id} ${outcome}`);
    return id;
  }

  // The read API, watched for the runtime's entries as the benchmark runs.
  const seenAt = new Map<string, number>();
  let watching = true;
  const watcher = (async () => {
    const since = Number((await client.getBlock()).timestamp) - 5;
    while (watching) {
      // Newest first: page on until a page brings nothing new (a poll of the indexer can land
      // hundreds of entries at once).
      for (let page = 1; ; page++) {
        const response = await fetch(
          `${ponder!.url}/api/agents/action-logs?tokenId=${runtimeTarget}&since=${since}&pageSize=100&page=${page}`,
        );
        const { items } = (await response.json()) as { items: { actionPayload: { intent?: string } | null }[] };
        let fresh = 0;
        for (const item of items) {
          const id = item.actionPayload?.intent;
          if (id && !seenAt.has(id)) {
            seenAt.set(id, performance.now());
            fresh++;
          }
        }
        if (fresh === 0 || items.length < 100) break;
      }
      await sleep(50);
    }
  })();

  // Warm-up: a few of each, untimed (round 0).
  await directRound(0, CONCURRENCY);
  await runtimeRound(0, CONCURRENCY);
  const rows: { path: string; round: number; seconds: number; perSecond: number }[] = [];
  // Each round starts once the indexer has caught up with the one before (about 15 s for 200
  // actions on PGlite): back to back, each round would pay for the previous one's indexing, and
  // the first direct round, after only the warm-up, for almost none.
  const quiet = async () => waitIndexed(ponder!, await chain.blockNumber(), 300_000);
  for (let round = 1; round <= ROUNDS; round++) {
    await quiet();
    const d = await directRound(round);
    rows.push({ path: "direct", round, seconds: d, perSecond: ACTIONS / d });
    log(`direct round ${round}: ${(ACTIONS / d).toFixed(1)} actions/s`);
    await quiet();
    const r = await runtimeRound(round);
    rows.push({ path: "runtime", round, seconds: r, perSecond: ACTIONS / r });
    log(`runtime round ${round}: ${(ACTIONS / r).toFixed(1)} actions/s`);
  }
  // Lag at the rate the runtime records in use (a few actions a second), once the indexer has
  // caught up with the bursts above (a block per transaction: they take it a while).
  await waitIndexed(ponder, await chain.blockNumber(), 300_000);
  log(`indexer caught up; lag phase: ${LAG_ACTIONS} actions, one every ${LAG_GAP_MS} ms`);
  for (let i = 0; i < LAG_ACTIONS; i++) {
    const started = performance.now();
    const id = await runtimeRecord(-1, i);
    minedAt.set(id, performance.now());
    await sleep(Math.max(0, LAG_GAP_MS - (performance.now() - started)));
  }
  const deadline = Date.now() + 30_000;
  while ([...minedAt.keys()].some((id) => !seenAt.has(id)) && Date.now() < deadline) await sleep(100);
  watching = false;
  await watcher;
  await sql.close();

  const total = (path: string) => {
    const r = rows.filter((x) => x.path === path);
    return (r.length * ACTIONS) / r.reduce((s, x) => s + x.seconds, 0);
  };
  const ratio = total("runtime") / total("direct");
  const lags = [...minedAt].flatMap(([id, at]) => (seenAt.has(id) ? [seenAt.get(id)! - at] : []));
  const missing = minedAt.size - lags.length;
  console.log("");
  console.log("path               actions  wall s  actions/s  x direct");
  console.log("-----------------  -------  ------  ---------  --------");
  for (const r of rows)
    console.log(
      `${`${r.path}, round ${r.round}`.padEnd(17)}  ${String(ACTIONS).padStart(7)}  ${r.seconds.toFixed(2).padStart(6)}  ${r.perSecond.toFixed(1).padStart(9)}  ${r.path === "runtime" ? `${(r.perSecond / rows.find((x) => x.path === "direct" && x.round === r.round)!.perSecond).toFixed(2)}x`.padStart(8) : ""}`,
    );
  console.log(
    `${"direct, all".padEnd(17)}  ${String(ROUNDS * ACTIONS).padStart(7)}  ${"".padStart(6)}  ${total("direct").toFixed(1).padStart(9)}`,
  );
  console.log(
    `${"runtime, all".padEnd(17)}  ${String(ROUNDS * ACTIONS).padStart(7)}  ${"".padStart(6)}  ${total("runtime").toFixed(1).padStart(9)}  ${`${ratio.toFixed(2)}x`.padStart(8)}`,
  );
  console.log("");
  console.log(
    `lag from receipt to /api/agents/action-logs (indexer polling ${POLL_MS} ms), ${lags.length} actions${missing ? `, ${missing} not seen in 30 s` : ""}:`,
  );
  console.log(
    `  p50 ${percentile(lags, 50).toFixed(0)} ms   p99 ${percentile(lags, 99).toFixed(0)} ms   max ${Math.max(...lags).toFixed(0)} ms`,
  );
  console.log("");
  console.log(
    `actions/s: runtime >= ${TARGET}x direct      ${ratio.toFixed(2)}x  ${ratio >= TARGET ? "MET" : "MISSED"}`,
  );
  const p99 = percentile(lags, 99);
  console.log(
    `lag p99 <= 2 polling intervals (${2 * POLL_MS} ms)  ${p99.toFixed(0)} ms  ${p99 <= 2 * POLL_MS && missing === 0 ? "MET" : "MISSED"}`,
  );
  await deployed.close();
} finally {
  await ponder?.stop().catch(() => {});
  await stopAll();
  await rm(tmp, { recursive: true, force: true });
  // openOperator names the schema <schema>_<agent name>.
  if (process.env.DATABASE_URL)
    await pgQuery(process.env.DATABASE_URL, `drop schema if exists "${JOURNAL_SCHEMA}_bench_scout" cascade`).catch(
      (error: unknown) => console.error(`could not drop the journal's schema: ${(error as Error).message}`),
    );
}
process.exit(0);
