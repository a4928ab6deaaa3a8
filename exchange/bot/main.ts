// The demo market maker: `node exchange/bot/main.ts` (npm start runs it next to the exchange).
// It trades through the public signed API with the demo users' keys (EXCHANGE_DEMO writes them
// to DEMO_CREDENTIALS): the market maker quotes a ladder around a random-walking mid on every
// pair and the taker crosses it with small orders, so the books, tickers and candles move. It
// reads the pairs again every so often: the agent tokens' pairs are listed as the ecosystem API
// indexes the chain's tokens, possibly after the bot started.
import { randomBytes } from "node:crypto";
import { botEnv, parseEnv } from "../../config/env.ts";
import { readDemoCredentials, type DemoCredential } from "../demo/credentials.ts";
import { MarketMakerBot } from "./bot.ts";
import { ApiCallError, ExchangeHttp } from "./client.ts";
import { createRandom } from "./random.ts";

const MAKER_LABEL = "market-maker";
const TAKER_LABEL = "market-taker";
const STARTUP_TIMEOUT_MS = 60_000;
const SUMMARY_EVERY_MS = 20_000;
const PAIRS_RELOAD_MS = 10_000;

const env = parseEnv(botEnv);
const seed = env.BOT_SEED ?? randomBytes(4).toString("hex");
const http = new ExchangeHttp(env.EXCHANGE_URL);
const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

let stopping = false;
let wake: () => void = () => {};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) {
      log("bot: stopping now");
      process.exit(1);
    }
    stopping = true;
    log(`bot: ${signal}, stopping after this round`);
    wake();
  });
}

/** Sleeps `ms`, or less when a signal arrives. */
const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });

/**
 * Waits until the credentials file names the maker and the taker and the exchange accepts
 * both keys: the exchange writes the file just after it starts listening, and rewrites it
 * when its database was reset.
 */
async function credentials(): Promise<{ maker: DemoCredential; taker: DemoCredential }> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let last = "";
  const waiting = (why: string) => {
    if (why !== last) log(`bot: waiting: ${why}`);
    last = why;
  };
  while (!stopping) {
    try {
      const entries = await readDemoCredentials(env.DEMO_CREDENTIALS);
      const maker = entries?.find((entry) => entry.label === MAKER_LABEL);
      const taker = entries?.find((entry) => entry.label === TAKER_LABEL);
      if (entries === undefined)
        waiting(`${env.DEMO_CREDENTIALS} does not exist yet (start the exchange with EXCHANGE_DEMO=true)`);
      else if (maker === undefined || taker === undefined)
        waiting(`${env.DEMO_CREDENTIALS} has no ${MAKER_LABEL} or ${TAKER_LABEL}`);
      else {
        await http.signed(maker, "GET", "/api/balances");
        await http.signed(taker, "GET", "/api/balances");
        return { maker, taker };
      }
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 401)
        waiting(`the exchange does not accept the keys in ${env.DEMO_CREDENTIALS} yet (${error.message})`);
      else if (error instanceof ApiCallError) waiting(`the exchange answers ${error.status} ${error.message}`);
      else if (!(error instanceof TypeError)) waiting((error as Error).message);
      else waiting(`${env.EXCHANGE_URL} does not answer (${(error as Error).cause ?? (error as Error).message})`);
    }
    if (Date.now() > deadline) throw new Error(`gave up after ${STARTUP_TIMEOUT_MS / 1000} s: ${last}`);
    await pause(1000);
  }
  process.exit(0);
}

try {
  log(
    `bot: exchange ${env.EXCHANGE_URL}, credentials ${env.DEMO_CREDENTIALS}, every ${env.BOT_INTERVAL_MS} ms, BOT_SEED=${seed}`,
  );
  const keys = await credentials();
  const bot = new MarketMakerBot({
    http,
    maker: keys.maker,
    taker: keys.taker,
    random: createRandom(seed),
    intervalMs: env.BOT_INTERVAL_MS,
    log,
  });
  await bot.loadPairs();
  if (bot.pairs.length === 0) throw new Error("no pair to quote");
  const leftover = await bot.cancelAll();
  log(
    `bot: quoting ${bot.pairs.join(", ")} as ${keys.maker.label} (${keys.maker.userId}), taking as ${keys.taker.label} (${keys.taker.userId})${leftover > 0 ? `; cancelled ${leftover} leftover orders` : ""}`,
  );

  let lastSummary = Date.now();
  let lastPairs = Date.now();
  while (!stopping) {
    const started = Date.now();
    if (started - lastPairs >= PAIRS_RELOAD_MS) {
      lastPairs = started;
      const before = new Set(bot.pairs);
      try {
        await bot.loadPairs();
        const added = bot.pairs.filter((code) => !before.has(code));
        if (added.length > 0) log(`bot: now quoting ${added.join(", ")} too`);
      } catch (error) {
        log(`bot: could not read the pairs again (${(error as Error).message}); quoting ${bot.pairs.join(", ")}`);
      }
    }
    try {
      const summary = await bot.tick();
      if (summary.tick === 1)
        log(
          `bot: first round: quoted ${summary.quoted.join(", ") || "nothing"}, ${summary.trades} taker trades, ${summary.errors} errors`,
        );
    } catch (error) {
      // tick() catches API errors itself; anything here is unexpected, but the bot keeps going.
      log(`bot: round failed: ${(error as Error).stack ?? error}`);
    }
    if (Date.now() - lastSummary >= SUMMARY_EVERY_MS) {
      const t = bot.totals;
      log(
        `bot: ${t.ticks} rounds, ${t.quotes} quotes, ${t.takerOrders} taker orders of which ${t.takerFills} traded, ${t.errors} errors; mids ${bot.mids().join(", ")}`,
      );
      lastSummary = Date.now();
    }
    if (!stopping) await pause(Math.max(0, env.BOT_INTERVAL_MS - (Date.now() - started)));
  }
  try {
    const cancelled = await bot.cancelAll();
    log(`bot: stopped; cancelled the market maker's ${cancelled} open orders`);
  } catch (error) {
    log(`bot: stopped; could not cancel the market maker's orders (${(error as Error).message})`);
  }
  process.exit(0);
} catch (error) {
  log(`bot: ${(error as Error).message}`);
  process.exit(1);
}
