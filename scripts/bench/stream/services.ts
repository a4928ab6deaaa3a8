import { spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { onCleanup, type Started, startProcess, stopProcess, unlessExited } from "../indexer/processes.ts";
import { waitFor } from "../../../support/wait.ts";
import type { StreamBenchConfig } from "./config.ts";
import type { ChildMemory } from "./exchange-child.ts";

/**
 * The processes under test: the exchange (stream/exchange-child.ts: startExchange, plus its
 * memory on request over IPC) and `npm run gateway`'s `node exchange/gateway/main.ts`, each a
 * child in its own process group with its output in the temp dir, so their CPU and memory are
 * theirs alone (/proc).
 */

export const REPO = new URL("../../../", import.meta.url).pathname;
export const GATEWAY_MAIN = join(REPO, "exchange/gateway/main.ts");
export const ADMIN_TOKEN = "admin-token-for-the-bench-only";

/** Guards lifted so the bench measures the streams, not the limiters. */
const WS_LIMITS = { WS_MAX_CONNECTIONS_PER_IP: "100000", WS_MAX_CONNECTIONS: "100000" };

export interface Service {
  readonly entry: Started;
  /** http:// of the exchange, ws://.../ws of a gateway. */
  readonly url: string;
  readonly pid: number;
}

export interface ExchangeService extends Service {
  /** Memory after a full GC, and the WebSocket server's counts. */
  memory(): Promise<ChildMemory>;
}

export async function startExchangeChild(
  cfg: StreamBenchConfig,
  tmp: string,
  name: string,
  natsUrl: string | undefined,
): Promise<ExchangeService> {
  const dir = join(tmp, name);
  await mkdir(dir, { recursive: true });
  const schema = `bench_stream_${name.replace(/\W/g, "_")}_${process.pid}`;
  const env: Record<string, string> = {
    EXCHANGE_PORT: "0",
    EXCHANGE_HOST: "127.0.0.1",
    EXCHANGE_DATA_DIR: join(dir, "exchange"),
    EXCHANGE_SERVER_KEY: "33".repeat(32),
    EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
    EXCHANGE_SERVICE_SECRET: "service-secret-for-the-bench-only",
    RATE_LIMIT_PER_MINUTE: "100000000",
    SIGNED_RATE_LIMIT_PER_MINUTE: "100000000",
    AUTH_FAILURE_LIMIT_PER_MINUTE: "100000",
    ...WS_LIMITS,
    // Empty means unset (parseEnv): the direct runs must not pay for a NATS sink.
    NATS_URL: natsUrl ?? "",
    DATABASE_URL: cfg.DATABASE_URL ?? "",
    EXCHANGE_DB_SCHEMA: schema,
  };
  if (cfg.DATABASE_URL) onCleanup(() => dropSchema(cfg.DATABASE_URL!, schema));
  const logPath = join(dir, "exchange.log");
  logs.push(logPath);
  const log = openSync(logPath, "w");
  // Not processes.ts's startProcess: this child needs an IPC channel.
  const child = spawn(process.execPath, ["--expose-gc", join(REPO, "scripts/bench/stream/exchange-child.ts")], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ["ignore", log, log, "ipc"],
    detached: true,
  });
  const entry: Started = { name, child, logPath };
  onCleanup(() => stopProcess(entry));
  process.once("exit", () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"));
  const url = await unlessExited(entry, lineOf(logPath, /exchange: serving (http:\/\/\S+)/, name));
  const answers = new Map<number, (memory: ChildMemory) => void>();
  let nextId = 1;
  child.on("message", (reply: ChildMemory & { id: number }) => answers.get(reply.id)?.(reply));
  return {
    entry,
    url,
    pid: child.pid!,
    memory: () =>
      unlessExited(
        entry,
        new Promise<ChildMemory>((resolve) => {
          const id = nextId++;
          answers.set(id, resolve);
          child.send({ id });
        }),
      ),
  };
}

export async function startGatewayChild(tmp: string, name: string, natsUrl: string, exchangeUrl: string) {
  const entry = startProcess(name, process.execPath, [GATEWAY_MAIN], {
    cwd: REPO,
    env: { NATS_URL: natsUrl, GATEWAY_PORT: "0", GATEWAY_HOST: "127.0.0.1", EXCHANGE_URL: exchangeUrl, ...WS_LIMITS },
    logPath: join(tmp, `${name}.log`),
  });
  logs.push(entry.logPath);
  const url = await unlessExited(entry, lineOf(entry.logPath, /gateway: serving (ws:\/\/\S+)/, name));
  return { entry, url, pid: entry.child.pid! } satisfies Service;
}

export const stopService = (service: Service) => stopProcess(service.entry);

const logs: string[] = [];

/** The end of every child's log, for a run that failed (the temp dir goes with the cleanup). */
export function printLogTails(lines = 30): void {
  for (const path of logs) {
    const tail = readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    console.error(`\n--- ${path} (last ${lines} lines)\n${tail}`);
  }
}

/** Polls a child's log for its "serving <url>" line. */
async function lineOf(logPath: string, pattern: RegExp, what: string): Promise<string> {
  let url = "";
  await waitFor(
    `${what} to serve`,
    async () => {
      url = pattern.exec(readFileSync(logPath, "utf8"))?.[1] ?? "";
      return url !== "";
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  return url;
}

async function dropSchema(databaseUrl: string, schema: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}

/** Why the gateway part cannot run here, or undefined when it can. */
export async function gatewaySkipReason(cfg: StreamBenchConfig): Promise<string | undefined> {
  if (cfg.BENCH_STREAM_GATEWAYS === 0) return "BENCH_STREAM_GATEWAYS=0";
  if (!existsSync(GATEWAY_MAIN)) return "exchange/gateway/main.ts does not exist (no `npm run gateway` yet)";
  const { hostname, port } = new URL(cfg.NATS_URL.replace(/^nats:/, "http:"));
  const greeting = await new Promise<string>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 4222), timeout: 2_000 });
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString());
    });
    socket.once("timeout", () => socket.destroy(new Error("timed out")));
    socket.once("error", (error) => resolve(`error: ${error.message}`));
  });
  // A NATS server greets every connection with its INFO line.
  return greeting.startsWith("INFO") ? undefined : `NATS is not reachable at ${cfg.NATS_URL} (${greeting.trim()})`;
}
