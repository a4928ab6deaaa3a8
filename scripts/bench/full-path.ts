import { setTimeout as sleep } from "node:timers/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { mulberry32 } from "../../lib/random.ts";
import { seedFixtureMarketFor } from "../../support/exchange/fixture-market.ts";
import { startExchangeProcess } from "../../support/exchange/process.ts";
import { freePort } from "../../support/net/free-port.ts";

// The full trading path: a real exchange server process (HTTP, signature check, validation,
// matching, ledger and the group-committed database write before each answer) taking signed
// orders from autocannon. Requests are signed as they are sent (an HMAC is microseconds of the
// client's work), so each timestamp is current however slowly the server answers: pre-signed
// timestamps went stale past the 30 s window when PGlite on a busy machine took 50 s, and the
// resulting 401s tripped the auth-failure guard. The server runs alone in its process; the load
// generator in this one.

const PAIR = "ALPHA_USDT";
export const FULL_PATH_TARGET = 2000;

export interface FullPathResult {
  readonly backend: "postgres" | "pglite";
  readonly orders: number;
  readonly ordersPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly deals: number;
  readonly ledgerBalanced: boolean;
}

interface User {
  readonly publicKey: string;
  readonly privateKey: string;
}

interface UnsignedOrder {
  readonly user: User;
  readonly body: string;
}

/** Limit orders around 1.00 (half of them cross), 5% IOC; amounts 2..50 ALPHA. */
function randomOrders(seed: number, count: number, users: User[]): UnsignedOrder[] {
  const random = mulberry32(seed);
  const orders: UnsignedOrder[] = [];
  for (let i = 0; i < count; i++) {
    const user = users[i % users.length];
    const isBid = random() < 0.5;
    const offset = Math.floor(random() * 41) - 20; // -20..20 ticks of 0.0025 around 1.0000
    const price = (1 + offset * 0.0025).toFixed(4);
    const amount = String(2 + Math.floor(random() * 49));
    const body = JSON.stringify({
      isBid,
      currencyPairCode: PAIR,
      amount,
      price,
      ...(random() < 0.05 ? { timeInForce: "IOC" } : {}),
    });
    orders.push({ user, body });
  }
  return orders;
}

/**
 * Signs with API-Timestamp, so the server's replay cache is part of what is measured. Per user
 * the timestamps strictly increase (distinct signatures even for equal bodies) and stay at the
 * clock (the server accepts at most 1 s ahead) while a user sends under 1,000 orders/s.
 */
function signer(url: string) {
  const last = new Map<User, number>();
  return (order: UnsignedOrder) => {
    const timestamp = Math.max(Date.now(), (last.get(order.user) ?? 0) + 1);
    last.set(order.user, timestamp);
    const { user, body } = order;
    const signature = signRequest({
      publicKey: user.publicKey,
      privateKey: user.privateKey,
      method: "POST",
      url,
      body,
      timestamp,
    });
    return { ...signature, "content-type": "application/json" };
  };
}

async function admin(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function fire(url: string, orders: UnsignedOrder[], connections: number) {
  let next = 0;
  const sign = signer(url);
  const started = performance.now();
  let lastAnswer = started;
  const options: autocannon.Options = {
    url,
    connections,
    amount: orders.length,
    requests: [
      {
        method: "POST",
        setupRequest: (request: any) => {
          const order = orders[next++ % orders.length];
          return { ...request, path: "/api/orders", headers: sign(order), body: order.body };
        },
      },
    ],
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on("response", () => (lastAnswer = performance.now()));
  });
  // autocannon notices the last answer only on its next 1-second tick, so its duration (and the
  // wall time around it) is quantised to whole seconds: +-11% on a 9 s run. The time from the
  // first request to the last answer is what the orders took.
  return { result, seconds: (lastAnswer - started) / 1000 };
}

/** BENCH_PROFILE_DIR: write the server's CPU profile there (open it in Chrome DevTools). */
const profileArgs = () =>
  process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", resolve(process.env.BENCH_PROFILE_DIR)] : [];

/** Runs the full path once on PostgreSQL (DATABASE_URL) or PGlite; cleans up after itself. */
export async function benchFullPath(options: {
  seed: number;
  orders: number;
  connections: number;
  databaseUrl?: string;
}): Promise<FullPathResult> {
  const dir = await mkdtemp(join(tmpdir(), "bench-full-path-"));
  const schema = `bench_exchange_${process.pid}`;
  const port = await freePort();
  const adminToken = "bench-admin-token-0123456789";
  const vars: Record<string, string> = {
    EXCHANGE_PORT: String(port),
    EXCHANGE_DATA_DIR: join(dir, "exchange"),
    DEMO_CREDENTIALS: join(dir, "demo-credentials.json"),
    EXCHANGE_DEMO: "true",
    EXCHANGE_SERVER_KEY: "22".repeat(32),
    EXCHANGE_ADMIN_TOKEN: adminToken,
    EXCHANGE_SERVICE_SECRET: "bench-service-secret-0123456789",
    RATE_LIMIT_PER_MINUTE: "100000000",
    SIGNED_RATE_LIMIT_PER_MINUTE: "100000000",
    DATABASE_URL: options.databaseUrl ?? "",
    ...(options.databaseUrl ? { EXCHANGE_DB_SCHEMA: schema } : {}),
  };
  // ALPHA_USDT is the fixture market's (the demo market lists agent tokens from a chain).
  await seedFixtureMarketFor(vars);
  const server = await startExchangeProcess(port, vars, profileArgs());
  const serverUp = Date.now();
  const base = `http://127.0.0.1:${port}`;
  try {
    const users: { userId: string; publicKey: string; privateKey: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const user = await admin(base, adminToken, "POST", "/admin/users", { level: 0 });
      const keys = await admin(base, adminToken, "POST", `/admin/users/${user.id}/keys`);
      for (const currencyCode of ["ALPHA", "USDT"])
        await admin(base, adminToken, "POST", "/admin/deposits", {
          userId: user.id,
          currencyCode,
          amount: "100000000",
        });
      users.push({ userId: user.id, ...keys });
    }
    const url = `${base}/api/orders`;
    // The server refuses timestamps before its start + 1 s (see auth/verify.ts).
    while (Date.now() < serverUp + 1_000) await sleep(serverUp + 1_000 - Date.now());
    await fire(url, randomOrders(options.seed + 1, Math.min(2000, options.orders), users), options.connections);
    const measured = randomOrders(options.seed, options.orders, users);
    const { result, seconds } = await fire(url, measured, options.connections);
    const ledger = (await admin(base, adminToken, "GET", "/admin/ledger")) as { balanced: boolean }[];
    const ok = result["2xx"];
    return {
      backend: options.databaseUrl ? "postgres" : "pglite",
      orders: ok,
      ordersPerSecond: ok / seconds,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx + result.errors,
      deals: await countDeals(base),
      ledgerBalanced: ledger.every((row) => row.balanced),
    };
  } finally {
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    if (options.databaseUrl) {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/** Deals on the pair so far: the newest deal's per-pair trade id. */
async function countDeals(base: string): Promise<number> {
  const response = await fetch(`${base}/api/marketdata/getaggregator/historical_trades?ticker_id=${PAIR}&limit=100`);
  const body = (await response.json()) as { buy: { trade_id: number }[]; sell: { trade_id: number }[] };
  return Math.max(0, ...body.buy.map((t) => t.trade_id), ...body.sell.map((t) => t.trade_id));
}
