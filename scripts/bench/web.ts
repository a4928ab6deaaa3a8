/**
 * `npm run bench:web`: the web app as a visitor meets it, in headless Chromium, against a running
 * platform (`npm start`: WEB_PORT, PORT and CHAIN_PORT as it reads them), or, when nothing answers
 * there, a platform it starts itself on free ports and stops afterwards. Each figure is printed
 * against its budget (issue 25) and against a baseline measured in the same run:
 *
 * - the first page's JavaScript: every script `/` loads until its token list shows, gzip bytes
 *   (what the server sends for Accept-Encoding: gzip); baseline: all of the app's JavaScript.
 * - time to the token list: navigation start to the list's first row visible, cold cache, median
 *   of BENCH_RUNS (5), and again with its scripts cached; baseline: the same API call the page
 *   makes, timed from Node.
 * - a live row: from a swap mined on the chain (its send answered: the local node mines on send)
 *   to its row on the token page, median and worst of BENCH_SWAPS (3); baseline: from the same
 *   moment to the swap in the API's trades (the indexer's delay, which the page cannot beat).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { createWalletClient, http, parseAbi } from "viem";
import { parseEnv, startEnv, webEnv } from "../../config/env.ts";
import { launchChromium } from "../../support/browser/chromium.ts";
import { type Platform, startPlatform } from "../../support/platform.ts";
import { setTimeout as sleep } from "node:timers/promises";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 3);
const BUDGET = { jsGzipBytes: 250 * 1024, tokenListMs: 1_000, liveRowMs: 2_000 };
/** Hardhat account #7: a demo user with mUSD, every seeded pool approved (scripts/lib/seed-demo.ts). */
const TRADER = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955" as const;
const POOL_ABI = parseAbi([
  "function swapExactIn(address tokenIn, uint256 amountIn, uint256 minAmountOut, address recipient) returns (uint256)",
]);
/** The token list's rows: links to a token's page inside a table. */
const FIRST_ROW = "table tbody tr a[href^='/tokens/']";

const web = parseEnv(webEnv);
const start = parseEnv(startEnv);
let urls = {
  web: `http://127.0.0.1:${web.WEB_PORT}`,
  api: `http://127.0.0.1:${start.PORT}`,
  chain: `http://127.0.0.1:${start.CHAIN_PORT}`,
};
let platform: Platform | undefined;
if (!(await fetch(`${urls.web}/config.json`, { signal: AbortSignal.timeout(3_000) }).catch(() => undefined))?.ok) {
  console.log(`Nothing serves the web app at ${urls.web}: starting a platform on free ports (npm start) ...`);
  platform = await startPlatform({ env: { RATE_LIMIT_PER_MINUTE: "100000", WEB_RATE_LIMIT_PER_MINUTE: "100000" } });
  urls = { web: platform.urls.web, api: platform.urls.api, chain: platform.urls.chain };
}
const browser = await launchChromium();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${Math.round(value)} ms`;
const rows: [string, string, string, string, string][] = [];

try {
  // --- The first page's JavaScript, and the time to its token list (cold cache each run) -----
  const scripts = new Set<string>();
  const listTimes: number[] = [];
  const warmTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.add(request.url());
    });
    await page.goto(`${urls.web}/`, { waitUntil: "commit" });
    listTimes.push(await shownAt(page, FIRST_ROW));
    // Again in the same browser: the hashed scripts now come from its cache (immutable).
    await page.goto(`${urls.web}/`, { waitUntil: "commit" });
    warmTimes.push(await shownAt(page, FIRST_ROW));
    await context.close();
  }
  let firstPageGzip = 0;
  for (const url of scripts) {
    const response = await fetch(url, { headers: { "Accept-Encoding": "gzip" } });
    // Node's fetch decompresses the body; Content-Length is what went over the wire.
    firstPageGzip += Number(response.headers.get("Content-Length") ?? (await response.arrayBuffer()).byteLength);
  }
  const assets = join(web.WEB_DIST_DIR, "assets");
  let allGzip = 0;
  for (const name of (await readdir(assets)).filter((n) => n.endsWith(".js")))
    allGzip += gzipSync(await readFile(join(assets, name)), { level: 9 }).length;
  rows.push([
    `first page JavaScript (${scripts.size} scripts), gzip`,
    kib(firstPageGzip),
    `<= ${kib(BUDGET.jsGzipBytes)}: ${firstPageGzip <= BUDGET.jsGzipBytes ? "met" : "MISSED"}`,
    `all of the app's JS: ${kib(allGzip)}`,
    `${(firstPageGzip / allGzip).toFixed(2)}x`,
  ]);

  const apiTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    await (await fetch(`${urls.api}/api/launchpad/tokens`)).json();
    apiTimes.push(performance.now() - t0);
  }
  const list = median(listTimes);
  rows.push([
    `token list's first row visible, median of ${RUNS} cold loads`,
    `${ms(list)} (${listTimes.map(Math.round).join(", ")})`,
    `<= ${ms(BUDGET.tokenListMs)}: ${list <= BUDGET.tokenListMs ? "met" : "MISSED"}`,
    `GET /api/launchpad/tokens: ${ms(median(apiTimes))}`,
    `${(list / median(apiTimes)).toFixed(1)}x`,
  ]);
  const warm = median(warmTimes);
  rows.push([
    "the same, scripts cached (a second visit)",
    `${ms(warm)} (${warmTimes.map(Math.round).join(", ")})`,
    `<= ${ms(BUDGET.tokenListMs)}: ${warm <= BUDGET.tokenListMs ? "met" : "MISSED"}`,
    `GET /api/launchpad/tokens: ${ms(median(apiTimes))}`,
    `${(warm / median(apiTimes)).toFixed(1)}x`,
  ]);

  // --- A swap's row on the token page ------------------------------------------------------
  const config = (await (await fetch(`${urls.web}/config.json`)).json()) as {
    contracts: Record<string, `0x${string}`>;
  };
  const tokens = (await (await fetch(`${urls.api}/api/launchpad/tokens?pageSize=100`)).json()) as {
    items: { symbol: string; address: string }[];
  };
  const alpha = tokens.items.find((t) => t.symbol === "ALPHA")!;
  const detail = (await (await fetch(`${urls.api}/api/launchpad/tokens/${alpha.address}`)).json()) as {
    pool: { address: `0x${string}` };
  };
  const poolAddress = detail.pool.address;
  const trader = createWalletClient({ account: TRADER, transport: http(urls.chain) });
  const context = await browser.newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.goto(`${urls.web}/tokens/${alpha.address}`);
  await page.locator("table tbody tr").first().waitFor({ timeout: 30_000 });
  const pageDelays: number[] = [];
  const apiDelays: number[] = [];
  for (let swap = 0; swap < SWAPS; swap++) {
    const hash = await trader.writeContract({
      address: poolAddress,
      abi: POOL_ABI,
      functionName: "swapExactIn",
      args: [config.contracts.MockStableToken!, 1_000_000n + BigInt(swap), 0n, TRADER],
      chain: null,
    });
    const minedAt = Date.now();
    const [onPage, inApi] = await Promise.all([
      page.waitForFunction(
        (h) => {
          // The row names its transaction: the full hash in a link, or shortened in its text.
          const html = (globalThis as unknown as PageGlobals).document.body.innerHTML.toLowerCase();
          return (
            [h, h.slice(0, 10), `${h.slice(0, 6)}…${h.slice(-4)}`].some((form) => html.includes(form)) && Date.now()
          );
        },
        hash.toLowerCase(),
        { polling: "raf", timeout: 60_000 },
      ),
      (async () => {
        for (;;) {
          const trades = (await (
            await fetch(`${urls.api}/api/launchpad/tokens/${alpha.address}/trades?pageSize=5`)
          ).json()) as { items: { txHash: string }[] };
          if (trades.items.some((t) => t.txHash.toLowerCase() === hash.toLowerCase())) return Date.now();
          await sleep(25);
        }
      })(),
    ]);
    pageDelays.push(((await onPage.jsonValue()) as number) - minedAt);
    apiDelays.push(inApi - minedAt);
    await sleep(1_500);
  }
  await context.close();
  const live = median(pageDelays);
  rows.push([
    `swap mined to its row on the token page, median of ${SWAPS} (worst)`,
    `${ms(live)} (${ms(Math.max(...pageDelays))})`,
    `<= ${ms(BUDGET.liveRowMs)}: ${Math.max(...pageDelays) <= BUDGET.liveRowMs ? "met" : "MISSED"}`,
    `swap in the API's trades: ${ms(median(apiDelays))}`,
    `${(live / Math.max(1, median(apiDelays))).toFixed(1)}x`,
  ]);
} finally {
  await browser.close();
  await platform?.stop();
}

const header: [string, string, string, string, string] = [
  "Measure",
  "Result",
  "Budget",
  "Baseline (same run)",
  "Ratio",
];
console.log(`\nbench:web against ${urls.web} (${new Date().toISOString().slice(0, 10)})\n`);
for (const row of [header, ...rows]) console.log(`| ${row.join(" | ")} |`);

/** What the functions run in the page use of its globals (this file is typed for Node). */
interface PageGlobals {
  document: {
    body: { innerHTML: string };
    querySelector(selector: string): { getClientRects(): { length: number } } | null;
  };
}

/** Polls in the page, each frame, until `selector` is visible; returns ms since navigation start. */
async function shownAt(page: Page, selector: string): Promise<number> {
  const handle = await page.waitForFunction(
    (s) => {
      const element = (globalThis as unknown as PageGlobals).document.querySelector(s);
      return element !== null && element.getClientRects().length > 0 && performance.now();
    },
    selector,
    { polling: "raf", timeout: 30_000 },
  );
  return (await handle.jsonValue()) as number;
}
