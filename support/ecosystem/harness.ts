/**
 * End-to-end harness of the indexer and the ecosystem API: a Hardhat node on a free port, the
 * contracts deployed and seeded through the project's own scripts (scripts/lib), and Ponder
 * processes indexing into PGlite (a private directory) or PostgreSQL (a private database with a
 * unique schema per Ponder), all torn down afterwards, even on failure.
 *
 * Isolation from the developer's tree: Ponder runs with `--root <repo>` (so it builds the real
 * config, schema, handlers and API) but with its working directory in a temporary "run dir" that
 * holds its own deployments/31337.json and .data/ponder, the two paths indexer/ponder-config.ts
 * resolves against the working directory. The repository's deployments/ and .data/ are never
 * touched. (Ponder's codegen rewrites the repository's ponder-env.d.ts with its fixed content.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { stripVTControlCharacters } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { rpcRequest } from "../../lib/chain-rpc.ts";
import { indexedBlock as ponderIndexedBlock } from "../../lib/ponder-status.ts";
import { type Answer, readAnswer } from "../exchange/signing-client.ts";
import { freePort } from "../net/free-port.ts";
import { type Watched, waitFor } from "../wait.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = (tool: string) => join(ROOT, "node_modules", ".bin", tool);
export const CHAIN_ID = 31337;

// ---------------------------------------------------------------------------------------------
// Processes

/** Every process this harness started and has not seen exit, for the exit-time safety net. */
const live = new Set<Service>();
const killAllNow = () => {
  for (const service of live) service.child.kill("SIGKILL");
};
process.once("exit", killAllNow);
// Interrupted (Ctrl-C, or the test runner cancelling this file): leave no process behind.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killAllNow();
    process.exit(130);
  });
}

/** A child process with its output in a log file; stopped by PID only. */
export class Service implements Watched {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly name: string;
  readonly logPath: string;
  private readonly logOffset: number;

  constructor(
    name: string,
    command: string,
    args: string[],
    logPath: string,
    options: { cwd: string; env: NodeJS.ProcessEnv },
  ) {
    this.name = name;
    this.logPath = logPath;
    this.logOffset = existsSync(logPath) ? readFileSync(logPath, "utf8").length : 0;
    // The child writes its log file itself: piped through this process, a Hardhat node's lines
    // about every transaction cost the test's own thread (bench:gateway: ~0.3 s of its main
    // thread per 600 withdrawals, beside the in-process exchange it measures).
    const log = openSync(logPath, "a");
    try {
      this.child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", log, log] });
    } finally {
      closeSync(log);
    }
    live.add(this);
    this.exited = new Promise((resolveExit) => {
      this.child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        live.delete(this);
        resolveExit(this.exitInfo);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. Resolves once the process is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGKILL at once (a crash), resolving once the process is gone. */
  async crash(): Promise<void> {
    if (!this.running) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }

  /**
   * The log without colour codes; with `fromStart`, only what this process wrote (a restart
   * appends to the same file). Colours are stripped because Ponder's logger colours its output
   * whenever `CI` is set, even into a pipe, which would hide the lines tests look for.
   */
  log(fromStart = false): string {
    const text = existsSync(this.logPath) ? readFileSync(this.logPath, "utf8") : "";
    return stripVTControlCharacters(fromStart ? text.slice(this.logOffset) : text);
  }

  tail(lines = 40): string {
    return this.log().split("\n").slice(-lines).join("\n");
  }

  describeExit(): string {
    return this.exitInfo ? `exited (${this.exitInfo.signal ?? `code ${this.exitInfo.code}`})` : "running";
  }
}

/** Stops every process this harness started that is still running (call it in `afterAll`). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((service) => service.stop()));
}

// ---------------------------------------------------------------------------------------------
// Run directories

/** A temporary directory for one test file's chain, Ponders and logs; removed by `cleanup`. */
export async function makeRunDir(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `e2e-${label}-`));
}

/** Keeps the run dir (and its logs) when KEEP_E2E_DIRS is set, for post-mortems. */
export async function removeRunDir(dir: string): Promise<void> {
  if (process.env.KEEP_E2E_DIRS) {
    console.log(`# kept ${dir}`);
    return;
  }
  await rm(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Chain

export interface Chain {
  url: string;
  service: Service;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  blockNumber(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `hardhat node` on a free port and waits until it answers JSON-RPC. */
export async function startChain(runDir: string): Promise<Chain> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = new Service(
    "chain",
    bin("hardhat"),
    ["node", "--hostname", "127.0.0.1", "--port", String(port)],
    join(runDir, "chain.log"),
    { cwd: ROOT, env: { ...process.env } },
  );
  const rpc = <T>(method: string, params: unknown[] = []) => rpcRequest<T>(url, method, params);
  await waitFor(`the Hardhat node on port ${port}`, async () => (await rpc<string>("eth_chainId")) !== undefined, {
    timeoutMs: 60_000,
    alive: [service],
  });
  return {
    url,
    service,
    rpc,
    blockNumber: async () => Number(BigInt(await rpc<string>("eth_blockNumber"))),
    stop: () => service.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// Deploy and seed, through the project's scripts

export type Viem = import("@nomicfoundation/hardhat-viem/types").HardhatViemHelpers;

/**
 * A Hardhat network connection (with the viem helpers the deploy and seed scripts take) to the
 * chain at `url`: the `rpc` network of hardhat.config.ts with its URL overridden.
 */
export async function connect(url: string): Promise<{ viem: Viem; close: () => Promise<void> }> {
  const { network } = await import("hardhat");
  const connection = await network.create({ network: "rpc", override: { url } });
  return { viem: connection.viem as unknown as Viem, close: () => connection.close() };
}

/**
 * Deploys the ecosystem (writing `<runDir>/deployments/31337.json`, never the repository's) and,
 * unless `seed` is false, runs the demo seed.
 */
export async function deployAndSeed(chain: Chain, runDir: string, { seed = true } = {}) {
  const [{ deployAndRecord }, { seedDemo }, { chainEnv, parseEnv }] = await Promise.all([
    import("../../scripts/lib/deploy-and-record.ts"),
    import("../../scripts/lib/seed-demo.ts"),
    import("../../config/env.ts"),
  ]);
  const { viem, close } = await connect(chain.url);
  const { deployment, path } = await deployAndRecord(viem, parseEnv(chainEnv, { RPC_URL: chain.url }), runDir);
  const summary = seed ? await seedDemo(viem, deployment.contracts) : undefined;
  return { viem, close, deployment, deploymentFile: path, summary };
}

// ---------------------------------------------------------------------------------------------
// Databases

export type Backend = { kind: "pglite" } | { kind: "postgres"; url: string };

/**
 * The backends to run on: PGlite always, PostgreSQL too when DATABASE_URL is set. E2E_BACKENDS
 * (comma-separated: pglite,postgres) narrows the list.
 */
export function backends(): Backend[] {
  const wanted = process.env.E2E_BACKENDS?.split(",").map((s) => s.trim());
  const all: Backend[] = [{ kind: "pglite" }];
  if (process.env.DATABASE_URL) all.push({ kind: "postgres", url: process.env.DATABASE_URL });
  return wanted ? all.filter((b) => wanted.includes(b.kind)) : all;
}

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
const pg = createRequire(import.meta.url)("pg") as { Client: new (config: { connectionString: string }) => PgClient };

export async function pgQuery(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A private PostgreSQL database for one test file, created beside the one DATABASE_URL names and
 * dropped by `drop()`. A database of its own, not only a schema: Ponder keeps its RPC cache in
 * the database-wide `ponder_sync` schema keyed by chain id, and every test chain is a different
 * chain 31337 at the same addresses, so a shared cache would serve one chain's logs to another.
 * Ponders inside it still use a unique schema each.
 */
export async function createPrivateDatabase(baseUrl: string, label: string) {
  const name = `e2e_${label}_${process.pid}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  try {
    await pgQuery(baseUrl, `CREATE DATABASE "${name}"`);
  } catch (error) {
    throw new Error(
      `cannot create the test database ${name} beside DATABASE_URL (${(error as Error).message}); ` +
        "the e2e suite needs CREATEDB there, since Ponder's RPC cache (ponder_sync) is database-wide",
    );
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await pgQuery(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

let schemaCounter = 0;
/** A Ponder schema name unique to this run (max 45 characters). */
export function uniqueSchema(label: string): string {
  return `e2e_${label}_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`.slice(0, 45);
}

// ---------------------------------------------------------------------------------------------
// Ponder

export interface PonderOptions {
  name: string;
  runDir: string;
  chain: Chain;
  /** The deployments/31337.json the Ponder follows. */
  deploymentFile: string;
  backend: Backend;
  /** Postgres schema (also used under PGlite); a unique one by default. */
  schema?: string;
  /** The Ponder's working directory (its deployments/ and .data/); a new one by default. */
  workDir?: string;
  env?: Record<string, string>;
}

export interface Ponder {
  name: string;
  url: string;
  schema: string;
  workDir: string;
  service: Service;
  options: PonderOptions;
  stop(): Promise<void>;
}

/** Starts `ponder start` and waits until its HTTP server answers /health. */
export async function startPonder(options: PonderOptions): Promise<Ponder> {
  const schema = options.schema ?? uniqueSchema(options.name.replace(/[^a-z0-9]/gi, "").toLowerCase());
  const workDir = options.workDir ?? join(options.runDir, `ponder-${options.name}`);
  await mkdir(join(workDir, "deployments"), { recursive: true });
  await copyFile(options.deploymentFile, join(workDir, "deployments", `${CHAIN_ID}.json`));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: options.chain.url,
    CHAIN_ID: String(CHAIN_ID),
    POLLING_INTERVAL_MS: "100",
    RATE_LIMIT_PER_MINUTE: "1000000",
    ...options.env,
  };
  // Ponder prefers PORT over --port, and any DATABASE_URL over PGlite.
  delete env.PORT;
  delete env.DATABASE_URL;
  delete env.DATABASE_PRIVATE_URL;
  if (options.backend.kind === "postgres") env.DATABASE_URL = options.backend.url;
  const logPath = join(options.runDir, `ponder-${options.name}.log`);
  const service = new Service(
    `ponder ${options.name}`,
    bin("ponder"),
    ["--root", ROOT, "start", "--schema", schema, "--port", String(port), "--hostname", "127.0.0.1"],
    logPath,
    { cwd: workDir, env },
  );
  // Ponder moves to the next free port if the one asked for was taken meanwhile: read it back.
  let actualPort: number;
  try {
    actualPort = await waitFor(
      `${service.name} to serve HTTP`,
      async () => {
        const match = /Created HTTP server port=(\d+)/.exec(service.log(true));
        if (!match) return undefined;
        const response = await fetch(`http://127.0.0.1:${match[1]}/health`);
        return response.ok ? Number(match[1]) : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, alive: [service] },
    );
  } catch (error) {
    console.log(`----- ${service.name}: last lines of ${logPath}\n${service.tail()}`);
    await service.stop();
    throw error;
  }
  return {
    name: options.name,
    url: `http://127.0.0.1:${actualPort}`,
    schema,
    workDir,
    service,
    options: { ...options, schema, workDir },
    stop: () => service.stop(),
  };
}

/** Starts the same Ponder again on the same database (same schema and PGlite directory). */
export function restartPonder(ponder: Ponder): Promise<Ponder> {
  return startPonder({ ...ponder.options, schema: ponder.schema, workDir: ponder.workDir });
}

/** The newest block Ponder reports as indexed (its /status), or -1 before any. */
export function indexedBlock(ponder: Ponder): Promise<number> {
  return ponderIndexedBlock(ponder.url);
}

/** The block of the newest indexed ecosystem event (the chain_head table), or -1 before any. */
export async function headRow(ponder: Ponder): Promise<number> {
  const rows = await sql<{ block_number: string }>(ponder.url, "select block_number from chain_head");
  return rows.length ? Number(rows[0].block_number) : -1;
}

/**
 * Waits until Ponder has indexed through `block`: its /status says so, or the indexed data
 * does (chain_head, the block of the newest indexed event, when `block` holds an event).
 */
export async function waitIndexed(ponder: Ponder, block: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${ponder.name} to index block ${block}`,
    async () => (await indexedBlock(ponder)) >= block || (await headRow(ponder)) >= block,
    { timeoutMs, alive: [ponder.service] },
  );
}

// ---------------------------------------------------------------------------------------------
// HTTP

export async function httpGet<T = any>(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return readAnswer<T>(await fetch(`${base}${path}`, { headers }));
}

/** Ponder's SQL over HTTP (the `/sql/db` endpoint `@ponder/client` uses). */
export async function sql<T = Record<string, unknown>>(
  base: string,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  const encoded = encodeURIComponent(JSON.stringify({ json: { sql: query, params } }));
  const response = await fetch(`${base}/sql/db?sql=${encoded}`);
  const text = await response.text();
  if (!response.ok) throw new Error(`/sql ${response.status}: ${text} (query: ${query})`);
  return (JSON.parse(text) as { rows: T[] }).rows;
}

/** Ponder's GraphQL; throws on GraphQL errors. */
export async function graphql<T = any>(
  base: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length) throw new Error(`GraphQL: ${body.errors.map((e) => e.message).join("; ")}`);
  return body.data as T;
}

// ---------------------------------------------------------------------------------------------
// Failure reporting

/** Prints the tail of every log of a run (chain and Ponders); call it when a test failed. */
export function printLogs(services: (Service | undefined)[], lines = 60): void {
  for (const service of services) {
    if (!service) continue;
    console.log(
      `\n----- ${service.name} (pid ${service.pid}, ${service.describeExit()}): last ${lines} lines of ${service.logPath}`,
    );
    console.log(service.tail(lines));
  }
}

/** Seeded PRNG for reproducible random choices; print the seed. */
export { mulberry32 as rng } from "../../lib/random.ts";

export function e2eSeed(): number {
  const fromEnv = process.env.E2E_SEED;
  const seed = fromEnv ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31);
  console.log(`# E2E_SEED=${seed} (set it to replay this run's random choices)`);
  return seed;
}

/** Prints how long each phase of a set-up took (`# 12.3s ponders indexed the seed`). */
export function stopwatch(label: string): (what: string) => void {
  const start = Date.now();
  return (what) => console.log(`# ${label} +${((Date.now() - start) / 1000).toFixed(1)}s ${what}`);
}
