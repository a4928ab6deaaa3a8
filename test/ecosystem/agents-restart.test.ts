/**
 * The agent runtime killed mid-tick: `npm run agents` (agents/runtime/main.ts) as a process on a
 * seeded chain, SIGKILLed at random moments (E2E_SEED replays them) while its workers trade and its
 * scouts and queen record, restarted each time, then stopped gracefully. Every intent it journalled
 * is finished, each recorded on the chain exactly once (its payload names it), and none twice.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type Address, createPublicClient, hexToString, http, type PublicClient } from "viem";
import { afterAll, beforeAll, it } from "vitest";
import { ActionLogAbi, AgentSpawnerAbi } from "../../indexer/abis.ts";
import { mulberry32 } from "../../lib/random.ts";
import {
  type Chain,
  deployAndSeed,
  e2eSeed,
  makeRunDir,
  printLogs,
  removeRunDir,
  ROOT,
  startChain,
  stopAll,
  type Viem,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";

const KILLS = 5;

let runDir: string;
let chain: Chain;
let viem: Viem;
let closeViem: () => Promise<void>;
let client: PublicClient;
let contracts: Record<string, Address>;
let child: ChildProcess | undefined;
let output = "";
let failed = false;

beforeAll(async () => {
  runDir = await makeRunDir("agents-restart");
  chain = await startChain(runDir);
  const deployed = await deployAndSeed(chain, runDir);
  viem = deployed.viem;
  closeViem = deployed.close;
  contracts = deployed.deployment.contracts as Record<string, Address>;
  client = createPublicClient({ transport: http(chain.url) }) as PublicClient;
}, 300_000);

afterAll(async () => {
  if (failed) {
    printLogs([chain?.service]);
    console.log(output.slice(-4000));
  }
  child?.kill("SIGKILL");
  await closeViem?.();
  await chain?.stop();
  await stopAll();
  if (runDir) await removeRunDir(runDir);
});

function startRuntime(crashBeforeBroadcast?: number): ChildProcess {
  const started = spawn(process.execPath, [join(ROOT, "agents/runtime/main.ts")], {
    cwd: runDir, // its deployments/31337.json
    env: {
      ...process.env,
      RPC_URL: chain.url,
      CHAIN_ID: "31337",
      AGENTS_TICK_MS: "300",
      AGENTS_DATA_DIR: join(runDir, "agents"),
      DATABASE_URL: "",
      AGENTS_CRASH_BEFORE_BROADCAST: crashBeforeBroadcast === undefined ? "" : String(crashBeforeBroadcast),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  started.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return started;
}

/** Resolves once `p` has exited (by a signal or with a code), also when it already has. */
const exited = (p: ChildProcess) =>
  new Promise<void>((resolve) =>
    p.exitCode !== null || p.signalCode !== null ? resolve() : p.once("exit", () => resolve()),
  );

/** A spawn by account `owner`: a new worker to run, a flag and a directive to record. */
async function spawnBy(owner: number, symbol: string) {
  const w = (await viem.getWalletClients())[owner]!;
  const fee = (await client.readContract({
    address: contracts.AgentSpawner,
    abi: AgentSpawnerAbi,
    functionName: "spawnFee",
  })) as bigint;
  const hash = await w.writeContract({
    address: contracts.AgentSpawner,
    abi: AgentSpawnerAbi,
    functionName: "spawn",
    args: [`Restart ${symbol}`, symbol, 0n, 0, { description: "", logoUri: "", website: "" }],
    value: fee,
  });
  assert.equal((await client.waitForTransactionReceipt({ hash })).status, "success");
}

async function recordedIntents(): Promise<string[]> {
  const logs = await client.getContractEvents({
    address: contracts.ActionLog,
    abi: ActionLogAbi,
    eventName: "ActionRecorded",
    fromBlock: 0n,
  });
  return logs.flatMap((log) => {
    try {
      const intent = (JSON.parse(hexToString(log.args.payload!)) as { intent?: unknown }).intent;
      return typeof intent === "string" ? [intent] : [];
    } catch {
      return [];
    }
  });
}

it("SIGKILLed mid-tick and restarted, the runtime neither repeats nor loses an action", async () => {
  try {
    const random = mulberry32(e2eSeed());
    for (let kill = 1; kill <= KILLS; kill++) {
      const from = output.length;
      // Odd rounds die by their own hand just before a random broadcast (the transaction signed
      // and journalled, not sent); even rounds are SIGKILLed a random moment after their first
      // finished intent, while others are in flight.
      const crashAt = kill % 2 === 1 ? 1 + Math.floor(random() * 8) : undefined;
      const run = startRuntime(crashAt);
      child = run;
      const gone = () => run.exitCode !== null || run.signalCode !== null;
      await waitFor("the runtime to start", async () => output.includes("agents: running", from) || gone(), {
        timeoutMs: 60_000,
      });
      // Something new each round, so every run has work to be interrupted.
      await spawnBy(3 + kill, `RST${"ABCDE"[kill - 1]}`);
      if (crashAt === undefined) {
        await waitFor("the run's first finished intent", async () => output.slice(from).includes(" done: "), {
          timeoutMs: 60_000,
        });
        await sleep(Math.floor(random() * 400));
      } else await Promise.race([exited(run), sleep(30_000)]);
      // A run that sent fewer transactions than its crash point is stopped the hard way too.
      if (!gone()) run.kill("SIGKILL");
      await exited(run);
      console.log(
        `# kill ${kill} (${crashAt === undefined ? "SIGKILL" : `before broadcast ${crashAt}`}): ${(await recordedIntents()).length} intents recorded so far`,
      );
    }
    // The last run finishes what the kills left open, then stops at the end of a tick.
    const before = (await recordedIntents()).length;
    child = startRuntime();
    await waitFor("the runtime to start", async () => output.includes("agents: running"), { timeoutMs: 60_000 });
    await waitFor("new records after the restart", async () => (await recordedIntents()).length > before, {
      timeoutMs: 60_000,
    });
    await sleep(2_000);
    child.kill("SIGTERM");
    await exited(child);

    // The kills landed in the middle of intents: restarts found some open and finished them.
    const resumed = output.match(/finishing \d+ intents an earlier tick left open/g)?.length ?? 0;
    console.log(`# restarts that finished open intents: ${resumed}`);
    assert.ok(resumed > 0, "some restart found open intents");

    const recorded = await recordedIntents();
    const twice = recorded.filter((id, i) => recorded.indexOf(id) !== i);
    assert.deepEqual(twice, [], "no intent recorded twice");

    const journals = await readdir(join(runDir, "agents"));
    assert.ok(journals.length >= 3, `journals: ${journals.join(", ")}`);
    let done = 0;
    for (const name of journals) {
      const db = new PGlite(join(runDir, "agents", name));
      try {
        await db.query('set search_path to "agents"');
        const open = await db.query<{ id: string }>("select id from agent_intent where state = 'open'");
        assert.deepEqual(open.rows, [], `${name}: every intent finished`);
        const finished = await db.query<{ id: string; spec: string }>(
          "select id, spec from agent_intent where state = 'done'",
        );
        for (const row of finished.rows) {
          assert.ok(recorded.includes(row.id), `${name}: intent ${row.id} is done and recorded on the chain`);
          done++;
        }
        // Set-up writes (approvals, funding) a kill left open were finished by a later run, so
        // every journalled nonce reached the chain: a gap would hold every later transaction.
        const setups = await db.query<{ id: string }>(
          "select id from relayed_write where state = 'open' and id like 'setup:%'",
        );
        assert.deepEqual(setups.rows, [], `${name}: every set-up write finished`);
        const txs = await db.query<{ hash: `0x${string}`; nonce: number }>(
          "select hash, nonce::int as nonce from relayer_tx order by nonce desc",
        );
        const mined = await Promise.all(
          txs.rows.map((tx) => client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined)),
        );
        const sender = mined.find((receipt) => receipt !== undefined)?.from;
        if (sender) {
          const used = await client.getTransactionCount({ address: sender });
          assert.ok(txs.rows[0]!.nonce < used, `${name}: journalled nonce ${txs.rows[0]!.nonce} is used (${used})`);
        }
      } finally {
        await db.close();
      }
    }
    assert.ok(done > 10, `${done} intents done`);
  } catch (error) {
    failed = true;
    throw error;
  }
});
