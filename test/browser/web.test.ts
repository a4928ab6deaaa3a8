/**
 * The web app in a real headless Chromium (@sparticuz/chromium driven by playwright-core) against
 * `npm start` on free ports, with an injected EIP-1193 wallet holding a dev account of the local
 * node. Every page is opened and photographed (test/browser/screenshots/), and judged: no uncaught
 * error, no console error, no failed request, no serious or critical axe-core violation. Then
 * what a person does with a wallet: connect, spawn a token, buy and sell on a pool, vote; and
 * what the app shows live without a reload: a new action-log entry, a trade on the exchange.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbi } from "viem";
import { afterAll, beforeAll, describe, test } from "vitest";
import { SigningClient } from "../../support/exchange/signing-client.ts";
import { readDeployment } from "../../lib/deployments.ts";
import { type PlatformUrls, startPlatform } from "../../support/platform.ts";
import { launchChromium } from "../../support/browser/chromium.ts";
import { waitFor as waitUntil } from "../../support/wait.ts";
import { type PageProblems, screenshot, seriousAxeViolations, watchPage } from "./page-checks.ts";
import { installTestWallet, type TestWallet } from "./wallet.ts";

/**
 * Hardhat account #6: a demo user (scripts/lib/seed-demo.ts) funded with mUSD and wrapped ETH,
 * every seeded pool approved, an ALPHA holder since before ALPHA's open proposal (so its vote
 * has weight), and no token of its own (no spawn cooldown). No service sends from it.
 */
const WALLET = "0x976EA74026E726554dB657fA54763abd0C3a0aa9" as const;
const CHAIN_ID = 31337;
/** Most ms the suite waits for one thing the page should show (a loaded machine is slow). */
const SHOWN_WITHIN_MS = 30_000;

/** The platform under test: started here, or (BROWSER_SUITE_PLATFORM) one already running. */
let platform: { urls: PlatformUrls; credentialsFile: string; stop(): Promise<void> };
let browser: Browser;
let context: BrowserContext;
let wallet: TestWallet;
let page: Page;
let problems: PageProblems;
const demo = { alpha: "", alphaNftId: 0 };

beforeAll(async () => {
  // Chromium unpacks while the platform starts.
  const launching = launchChromium();
  const running = process.env.BROWSER_SUITE_PLATFORM;
  // BROWSER_SUITE_PLATFORM: a developer's running platform, a JSON file of
  // {urls: {chain, api, exchange, web}, credentialsFile}. Its state is whatever earlier runs
  // left: a second spawn from the wallet meets its cooldown.
  platform = running
    ? { ...JSON.parse(await readFile(running, "utf8")), stop: async () => {} }
    : await startPlatform({
        env: {
          // Every client here is 127.0.0.1 (the browser's page loads, its streams and the suite's
          // own reads), so the per-IP quotas meant for many clients are raised for the run.
          RATE_LIMIT_PER_MINUTE: "100000",
          WEB_RATE_LIMIT_PER_MINUTE: "100000",
          SSE_MAX_CONNECTIONS_PER_IP: "100",
          WS_MAX_CONNECTIONS_PER_IP: "100",
        },
      }).catch(async (error) => {
        await (await launching.catch(() => undefined))?.close();
        throw error;
      });
  browser = await launching;
  // A locale and time zone as a visitor's browser has them (the bundled Chromium's own default
  // locale, en-US@posix, is no BCP 47 tag: Intl refuses it).
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    colorScheme: "dark",
    locale: "en-US",
    timezoneId: "UTC",
  });
  wallet = await installTestWallet(context, { rpcUrl: platform.urls.chain, address: WALLET, chainId: CHAIN_ID });
  page = await context.newPage();
  problems = watchPage(page);
  const tokens = await api<{ items: { symbol: string; address: string }[] }>("/api/launchpad/tokens?pageSize=100");
  demo.alpha = tokens.items.find((t) => t.symbol === "ALPHA")!.address;
  const workers = await api<{ items: { tokenSymbol: string; agentNftId: number }[] }>(
    "/api/agents/workers?pageSize=100",
  );
  demo.alphaNftId = workers.items.find((w) => w.tokenSymbol === "ALPHA")!.agentNftId;
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function api<T = any>(path: string): Promise<T> {
  const response = await fetch(`${platform.urls.api}${path}`, { signal: AbortSignal.timeout(10_000) });
  assert.equal(response.status, 200, `${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/** Polls `check` until it holds, for as long as the page is given to show something. */
const waitFor = <T>(what: string, check: () => Promise<T | undefined | false>) =>
  waitUntil(what, check, { timeoutMs: SHOWN_WITHIN_MS, intervalMs: 250 });

const shown = (locator: Locator) => locator.first().waitFor({ state: "visible", timeout: SHOWN_WITHIN_MS });

/**
 * Opens `path`, waits for what shows it loaded, photographs it and judges it: what went wrong
 * there (page errors, console errors, failed requests, serious or critical axe-core violations),
 * each prefixed with the path.
 */
async function visit(name: string, path: string, loaded: (page: Page) => Locator): Promise<string[]> {
  problems.take();
  await page.goto(`${platform.urls.web}${path}`);
  await shown(loaded(page));
  await screenshot(page, name);
  return [...problems.take(), ...(await seriousAxeViolations(page)).map((v) => `axe-core: ${v}`)].map(
    (problem) => `${path}: ${problem}`,
  );
}

/**
 * Opens /account signed in: connects the wallet and signs in when not yet (tests also run alone,
 * -t). The page may still be settling (the wallet reconnecting, the session being read), so a
 * button that goes away before it is clicked is looked for again rather than waited on.
 */
async function signedInToAccount(): Promise<void> {
  await page.goto(`${platform.urls.web}/account`);
  const connect = page.getByRole("button", { name: "Connect wallet" });
  const signIn = page.getByRole("button", { name: "Sign in with Ethereum" });
  const signedIn = page.getByRole("heading", { name: "Balances" });
  const choice = page.getByRole("button", { name: /Test Wallet/ });
  const deadline = Date.now() + SHOWN_WITHIN_MS;
  while (!(await signedIn.isVisible())) {
    if (Date.now() > deadline) throw new Error("not signed in to the exchange's web account in time");
    await shown(connect.or(signIn).or(signedIn).or(choice));
    for (const button of [choice, signIn, connect])
      if (await button.isVisible()) {
        await button.click({ timeout: 2_000 }).catch(() => {});
        break;
      }
    await page.waitForTimeout(250);
  }
}

describe("every page", () => {
  test("opens without an error or a failed request, and passes axe-core; a screenshot of each", async () => {
    // Every page is visited before judging, so one page's problem hides no other's (or screenshot).
    const found = [
      ...(await visit("launchpad", "/", (p) => p.getByRole("table").getByRole("link", { name: /ALPHA/ }))),
      ...(await visit("token", `/tokens/${demo.alpha}`, (p) =>
        p.getByRole("heading", { name: /Alpha Arbitrage Agent/ }),
      )),
      ...(await visit("spawn", "/spawn", (p) => p.getByLabel("Symbol"))),
      ...(await visit("agents", "/agents", (p) => p.getByRole("table").getByRole("link", { name: "ALPHA" }))),
      ...(await visit("action-log", "/agents/actions", (p) => actionRows(p))),
      ...(await visit("worker", `/agents/workers/${demo.alphaNftId}`, (p) =>
        p.getByRole("heading", { name: /^Worker #\d+/ }),
      )),
      ...(await visit("market", "/market/ETH_USDT", (p) => p.getByRole("heading", { name: /ETH\/USDT/ }))),
      ...(await visit("account-signed-out", "/account", (p) => p.getByRole("heading", { name: "Sign in" }))),
    ];
    assert.deepEqual(found, [], "no uncaught error, console error, failed request or serious axe-core violation");
  });
});

describe("the market chart", () => {
  test("draws ETH/USDT's candles at every interval without an error; a screenshot of each", async () => {
    await page.goto(`${platform.urls.web}/market/ETH_USDT`);
    const chart = page.locator("section[aria-labelledby=market-chart-heading]");
    problems.take();
    for (const label of ["1m", "5m", "15m", "1h", "4h", "1D"]) {
      await chart.getByRole("button", { name: label, exact: true }).click();
      await shown(chart.getByRole("figure", { name: `ETH_USDT candles, ${label}` }));
      // The chart paints on the next animation frames, after its range is set.
      await page.waitForTimeout(500);
      await screenshot(chart, `market-chart-${label}`);
    }
    assert.deepEqual(problems.take(), []);
  });
});

describe("what is not there", () => {
  test("an unknown pair is said, with no request or stream for it", async () => {
    const found = await visit("market-unknown", "/market/NOPE_USDT", (p) => p.getByText(/has no pair NOPE_USDT/));
    assert.deepEqual(found, []);
    assert.equal(await page.getByText("Live", { exact: true }).count(), 0, "no live badge for a pair that is not");
  });

  test('an unknown token address reads "Unknown token" after the one 404 that says so', async () => {
    const nobody = "0x00000000000000000000000000000000000000aa";
    const found = await visit("token-unknown", `/tokens/${nobody}`, (p) => p.getByText("Unknown token"));
    // The 404 shows as a failed response and as the browser's console line about it.
    const theOne404 = new RegExp(`/api/launchpad/tokens/${nobody}(: HTTP 404|\\))$`);
    assert.deepEqual(
      found.filter((problem) => !theOne404.test(problem)),
      [],
    );
  });
});

/** The action log's entries: the rows of its table, one per entry. */
const actionRows = (p: Page) => p.getByRole("table", { name: /Agent actions/ }).locator("tbody tr");

describe("with a wallet", () => {
  test("connects: the injected wallet is found and its account shown", async () => {
    await page.goto(`${platform.urls.web}/`);
    await page.getByRole("button", { name: "Connect wallet" }).click();
    // With several wallets the app lists those EIP-6963 announced; ours is "Test Wallet".
    const choice = page.getByRole("button", { name: /Test Wallet/ });
    if (await choice.isVisible().catch(() => false)) await choice.click();
    await shown(page.getByText(new RegExp(`${WALLET.slice(0, 6)}.*${WALLET.slice(-4)}`, "i")));
    assert.ok(wallet.requests.includes("eth_requestAccounts"), wallet.requests.join(", "));
    assert.deepEqual(problems.take(), []);
  });

  test("spawns a token from /spawn and lands on its page once it is indexed", async () => {
    const symbol = `W${Date.now()
      .toString(36)
      .toUpperCase()
      .replace(/[^A-Z]/g, "")
      .slice(-3)
      .padEnd(3, "Q")}`;
    const name = `Browser Suite ${symbol}`;
    await page.goto(`${platform.urls.web}/spawn`);
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Symbol").fill(symbol);
    await page.getByLabel("Total supply").fill("1000000000");
    await page.getByLabel("Pool side").selectOption({ label: "Stable token" });
    await page.getByLabel("Description").fill("Spawned by the browser suite through the injected wallet.");
    await page.getByRole("button", { name: "Spawn token" }).click();
    await page.waitForURL(/\/tokens\/0x[0-9a-fA-F]{40}$/, { timeout: 60_000 });
    await shown(page.getByRole("heading", { name: new RegExp(name) }));
    const address = page.url().split("/").at(-1)!;
    const { token } = await api<{ token: { symbol: string; owner: string } }>(`/api/launchpad/tokens/${address}`);
    assert.deepEqual([token.symbol, token.owner.toLowerCase()], [symbol, WALLET.toLowerCase()]);
    assert.ok(wallet.requests.includes("eth_sendTransaction"), "the spawn was sent from the wallet");
    await screenshot(page, "token-spawned");
    assert.deepEqual(problems.take(), []);
  });

  test("buys, then sells, on ALPHA's pool: both swaps are the wallet's on the chain and in the page", async () => {
    const trades = async () =>
      (
        await api<{ items: { trader: string; side: string; txHash: string }[] }>(
          `/api/launchpad/tokens/${demo.alpha}/trades?pageSize=20`,
        )
      ).items.filter((t) => t.trader.toLowerCase() === WALLET.toLowerCase());
    const before = (await trades()).length;
    await page.goto(`${platform.urls.web}/tokens/${demo.alpha}`);
    for (const [side, amount] of [
      ["Buy", "25"],
      ["Sell", "1000"],
    ] as const) {
      const sends = wallet.requests.filter((m) => m === "eth_sendTransaction").length;
      await page.getByLabel("Amount").fill(amount);
      await page.getByLabel("Slippage (%)").fill("5");
      await page.getByRole("button", { name: side, exact: true }).click();
      await waitFor(`the ${side.toLowerCase()} sent from the wallet`, async () =>
        wallet.requests.filter((m) => m === "eth_sendTransaction").length > sends ? true : undefined,
      );
      const mine = await waitFor(`the ${side.toLowerCase()} indexed`, async () => {
        const list = await trades();
        return list.length > before + (side === "Buy" ? 0 : 1) ? list : undefined;
      });
      assert.equal(mine[0]!.side, side.toLowerCase());
      // The trade shows in the token page's trades, its transaction named.
      await shown(page.getByRole("table").getByText(mine[0]!.txHash.slice(0, 10)));
      // The page's own flow ends too (it clears the amount then): typing the next one before
      // that would see it wiped.
      await shown(page.getByText(/^Done: mined in block/));
    }
    await screenshot(page, "token-traded");
    assert.deepEqual(problems.take(), []);
  });

  test("buys BETA (a wrapped-native pool) with ETH: the page wraps what the wallet's WETH lacks", async () => {
    const config = (await (await fetch(`${platform.urls.web}/config.json`)).json()) as {
      contracts: { WrappedNative: `0x${string}` };
    };
    const weth = config.contracts.WrappedNative;
    const chain = createPublicClient({ transport: http(platform.urls.chain, { timeout: 10_000 }) });
    const wethBalance = () =>
      chain.readContract({ address: weth, abi: erc20Abi, functionName: "balanceOf", args: [WALLET] });
    // The wallet's WETH unwrapped first (its dev account is unlocked on the node): a buy must wrap.
    const unlocked = createWalletClient({ account: WALLET, transport: http(platform.urls.chain) });
    const unwrap = await unlocked.writeContract({
      address: weth,
      abi: parseAbi(["function withdraw(uint256)"]),
      functionName: "withdraw",
      args: [await wethBalance()],
      chain: null,
    });
    await chain.waitForTransactionReceipt({ hash: unwrap });
    assert.equal(await wethBalance(), 0n);

    const tokens = await api<{ items: { symbol: string; address: string }[] }>("/api/launchpad/tokens?pageSize=100");
    const beta = tokens.items.find((t) => t.symbol === "BETA")!.address;
    const mine = async () =>
      (
        await api<{ items: { trader: string; pairAmount: string }[] }>(
          `/api/launchpad/tokens/${beta}/trades?pageSize=20`,
        )
      ).items.filter((t) => t.trader.toLowerCase() === WALLET.toLowerCase());
    const before = (await mine()).length;
    const sends = wallet.requests.filter((m) => m === "eth_sendTransaction").length;
    await page.goto(`${platform.urls.web}/tokens/${beta}`);
    await page.getByLabel("Amount").fill("0.05");
    await page.getByLabel("Slippage (%)").fill("5");
    await shown(page.getByText("Wraps 0.05 ETH first."));
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    const trades = await waitFor("the buy indexed", async () => {
      const list = await mine();
      return list.length > before ? list : undefined;
    });
    assert.equal(trades[0]!.pairAmount, "0.05");
    await shown(page.getByText(/^Done: mined in block/));
    // Two transactions from the wallet: the wrap and the swap (BETA's pool was approved in the seed).
    assert.equal(wallet.requests.filter((m) => m === "eth_sendTransaction").length - sends, 2);
    assert.equal(await wethBalance(), 0n, "exactly what the buy needed was wrapped");
    assert.deepEqual(problems.take(), []);
  });

  test("votes yes on ALPHA's open proposal: the tally moves by the wallet's weight", async () => {
    const open = await api<{ items: { proposalId: string; voteCount: number }[] }>(
      `/api/agents/workers/${demo.alpha}/proposals?status=open`,
    );
    const proposal = open.items[0]!;
    await page.goto(`${platform.urls.web}/tokens/${demo.alpha}`);
    await page.getByRole("button", { name: "Vote yes" }).first().click();
    await waitFor("the vote indexed", async () => {
      const now = await api<{ voteCount: number }>(`/api/agents/proposals/${proposal.proposalId}`);
      return now.voteCount === proposal.voteCount + 1;
    });
    await screenshot(page, "token-voted");
    assert.deepEqual(problems.take(), []);
  });
});

describe("the exchange's web account", () => {
  test("signs in with the wallet, creates an API key that places an order from Node, then revokes it", async () => {
    await page.goto(`${platform.urls.web}/account`);
    await page.getByRole("button", { name: "Sign in with Ethereum" }).click();
    await shown(page.getByRole("heading", { name: "API keys" }));
    assert.ok(wallet.requests.includes("personal_sign"), "the sign-in message was signed by the wallet");
    const userId = (await page.locator("dt:text-is('Account id') + dd code").textContent())!.trim();

    await page.getByRole("button", { name: "Create API key" }).click();
    const fresh = page.getByRole("status", { name: "New API key" });
    await shown(fresh);
    const [publicKey, privateKey] = (await fresh.locator("code").allTextContents()).map((t) => t.trim());
    await screenshot(page, "account");

    // The key signs SPEC.md's requests from Node: credited by the operator, it places an order.
    const secrets = JSON.parse(
      await readFile(join(dirname(platform.credentialsFile), "exchange-secrets.json"), "utf8"),
    ) as { adminToken: string };
    const exchange = new SigningClient(platform.urls.exchange, secrets.adminToken);
    const credited = await exchange.admin("POST", "/admin/deposits", { userId, currencyCode: "USDT", amount: "50" });
    assert.equal(credited.status, 201, credited.text);
    const key = { publicKey: publicKey!, privateKey: privateKey! };
    const placed = await exchange.signed(
      key,
      "POST",
      "/api/orders",
      { isBid: true, currencyPairCode: "ETH_USDT", amount: "0.01", price: "1000.00" },
      { timestamp: Date.now() },
    );
    assert.equal(placed.status, 201, placed.text);

    await page.getByRole("button", { name: `Revoke ${publicKey}` }).click();
    await page.getByRole("button", { name: `Revoke ${publicKey}` }).waitFor({ state: "detached" });
    const refused = await exchange.signed(key, "GET", "/api/balances", undefined, { timestamp: Date.now() });
    assert.equal(refused.status, 401, "a revoked key signs nothing");
    assert.deepEqual(problems.take(), []);
  });
});

describe("the exchange's web account: wallet and trading screen", () => {
  test("signs in, sees balances and the deposit address, places a limit order on /market and cancels it", async () => {
    await signedInToAccount();
    const userId = (await page.locator("dt:text-is('Account id') + dd code").textContent())!.trim();

    // Credited by the operator (deposits from the chain are the gateway's), then seen on the page.
    const secrets = JSON.parse(
      await readFile(join(dirname(platform.credentialsFile), "exchange-secrets.json"), "utf8"),
    ) as { adminToken: string };
    const exchange = new SigningClient(platform.urls.exchange, secrets.adminToken);
    const credited = await exchange.admin("POST", "/admin/deposits", { userId, currencyCode: "USDT", amount: "25" });
    assert.equal(credited.status, 201, credited.text);
    const balances = page.locator("section[aria-labelledby=balances-heading]");
    const usdtRow = balances.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "USDT" }) });
    // Its available balance: 25 credited here, more if the earlier test's credit is still there.
    await waitFor("the credited USDT in the balances", async () => {
      const available =
        (await usdtRow
          .locator("td")
          .first()
          .textContent()
          .catch(() => null)) ?? "0";
      return Number(available.replace(/,/g, "")) >= 25;
    });

    // The deposit address (the account's forwarder on the local chain) with its QR code.
    const deposit = page.locator("section[aria-labelledby=deposit-heading]");
    await shown(deposit.getByRole("img", { name: /QR code of the USDT deposit address/ }));
    const depositAddress = (await deposit.locator(".address code").textContent())!.trim();
    assert.match(depositAddress, /^0x[0-9a-fA-F]{40}$/);
    await screenshot(page, "account-wallet");
    const accountProblems = [...problems.take(), ...(await seriousAxeViolations(page)).map((v) => `axe-core: ${v}`)];

    // The trading screen: a post-only bid far under the market rests, shows in open orders, is cancelled.
    await page.goto(`${platform.urls.web}/market/ETH_USDT`);
    const form = page.getByRole("form", { name: "Order form" });
    await shown(form);
    const openTable = page.locator("section[aria-labelledby=open-orders-heading]");
    await shown(openTable.getByRole("heading", { name: "Open orders" }));
    // Logged into the /ws user stream with the session's ticket.
    await shown(openTable.getByText("live", { exact: true }));
    await page.waitForTimeout(2_500); // one poll, so the orders already open are listed
    const cancelLabels = async () =>
      Promise.all(
        (await openTable.getByRole("button", { name: /^Cancel order / }).all()).map((b) =>
          b.getAttribute("aria-label"),
        ),
      );
    const before = new Set(await cancelLabels());
    await form.getByLabel(/^Price/).fill("1.009");
    await form.getByLabel(/^Amount/).fill("1.23456");
    // The rounding is shown beside the field before anything is sent.
    await shown(form.getByText(/^Sent as 1\.2345: this pair takes 4 decimals/));
    await form.getByRole("checkbox", { name: /Post-only/ }).check();
    await form.getByRole("button", { name: "Place buy order" }).click();
    await shown(form.getByRole("status"));
    assert.match(
      (await form.getByRole("status").textContent())!,
      /open: buy 1\.2345 ETH at 1(\.00)?,/,
      "rounded down to the pair's digits",
    );
    const mine = await waitFor("the new order among the open orders", async () =>
      (await cancelLabels()).find((label) => label !== null && !before.has(label)),
    );
    await screenshot(page, "market-trading");
    const marketProblems = [...problems.take(), ...(await seriousAxeViolations(page)).map((v) => `axe-core: ${v}`)];
    await openTable.getByRole("button", { name: mine! }).click();
    await openTable.getByRole("button", { name: mine! }).waitFor({ state: "detached", timeout: SHOWN_WITHIN_MS });
    const id = mine!.replace("Cancel order ", "");
    assert.deepEqual([...accountProblems, ...marketProblems, ...problems.take()], []);
    console.log(`web account: deposit address ${depositAddress}; order ${id} placed and cancelled`);
  });
});

describe("the exchange's web account: money in and out on-chain", () => {
  test("a deposit sent on-chain is credited after its confirmations; a withdrawal reaches its address", async () => {
    await signedInToAccount();
    const deposit = page.locator("section[aria-labelledby=deposit-heading]");
    await shown(deposit.getByRole("img", { name: /QR code of the USDT deposit address/ }));
    const depositAddress = (await deposit.locator(".address code").textContent())!.trim() as `0x${string}`;

    // The wallet sends 30 of the chain's stable token (the exchange's USDT) with a plain transfer.
    const { contracts } = await readDeployment(CHAIN_ID);
    const chain = {
      id: CHAIN_ID,
      name: "local",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [platform.urls.chain] } },
    } as const;
    const client = createPublicClient({ chain, transport: http(platform.urls.chain) });
    const sender = createWalletClient({ chain, transport: http(platform.urls.chain) });
    const usdt = contracts.MockStableToken as `0x${string}`;
    const hash = await sender.writeContract({
      account: WALLET,
      address: usdt,
      abi: erc20Abi,
      functionName: "transfer",
      args: [depositAddress, 30_000_000n],
    });
    await client.waitForTransactionReceipt({ hash });
    await client.request({ method: "evm_mine" } as never);
    // Listed pending with its confirmations, then credited (the page refreshes while pending).
    const history = page
      .locator("section[aria-labelledby=deposit-heading]")
      .locator("tr")
      .filter({
        has: page.locator(`code[title="${hash}"]`),
      });
    await page.getByText("Deposit history").scrollIntoViewIfNeeded();
    await history.getByText("credited").waitFor({ state: "visible", timeout: 60_000 });
    await screenshot(page, "account-deposit-credited");

    // Withdraw 10 to a fresh address: 9 arrive (the 1 USDT fee stays), from the hot wallet's
    // float the seed gave it (or the deposit, once a sweep has brought it in).
    const recipient = `0x${Date.now().toString(16).padStart(40, "0")}` as `0x${string}`;
    const form = page.getByRole("form", { name: "Withdraw form" });
    await form.getByLabel("Currency to withdraw").selectOption("USDT");
    await form.getByLabel("Amount").fill("10");
    await form.getByLabel("Destination address").fill(recipient);
    await form.getByRole("button", { name: "Withdraw" }).click();
    await shown(page.getByRole("status").filter({ hasText: /Withdrawal of 10 USDT accepted/ }));
    await waitUntil(
      "the withdrawal's coins at the recipient",
      async () =>
        (await client.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [recipient] })) ===
        9_000_000n,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await shown(page.getByText("completed"));
    await screenshot(page, "account-withdrawal-completed");
    assert.deepEqual(problems.take(), []);
  });
});

describe("live, without a reload", () => {
  test("a new action-log entry arrives on /agents/actions", async () => {
    await page.goto(`${platform.urls.web}/agents/actions`);
    await shown(actionRows(page));
    await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
    const newest = await api<{ items: { entryId: number }[] }>("/api/agents/action-logs?pageSize=1");
    const firstRowBefore = await actionRows(page).first().textContent();
    // The agents act every few seconds on their own: wait for the next entry in the API ...
    const next = await waitFor("the agents' next action", async () => {
      const latest = await api<{ items: { entryId: number; actionType: string }[] }>(
        "/api/agents/action-logs?pageSize=1",
      );
      return latest.items[0]!.entryId > newest.items[0]!.entryId ? latest.items[0] : undefined;
    });
    // ... and in the page, as a new first row, in the same document.
    await waitFor(
      `entry ${next.entryId} on the page`,
      async () => (await actionRows(page).first().textContent()) !== firstRowBefore,
    );
    assert.equal(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument), true);
    await screenshot(page, "action-log-live");
    assert.deepEqual(problems.take(), []);
  });

  test("a trade placed on the exchange appears on /market/ETH_USDT", async () => {
    await page.goto(`${platform.urls.web}/market/ETH_USDT`);
    await shown(page.getByRole("heading", { name: /ETH\/USDT/ }));
    await page.evaluate(() => Object.assign(globalThis, { __sameDocument: true }));
    const credentials = JSON.parse(await readFile(platform.credentialsFile, "utf8")) as {
      label: string;
      userId: string;
      publicKey: string;
      privateKey: string;
    }[];
    const as = (label: string) => credentials.find((c) => c.label === label)!;
    const exchange = new SigningClient(platform.urls.exchange, "");
    const amount = 0.0137;
    // The page's trades at a price (its third column, "2,990.97" as 2990.97).
    const rowsAt = async (price: number) =>
      (await page.locator("section[aria-labelledby=deals-heading] tbody tr td:nth-child(3)").allTextContents()).filter(
        (text) => Number(text.replace(/,/g, "")) === price,
      ).length;
    // Inside the bot's spread, so the two orders meet each other: a resting ask, then a bid taking
    // it. The bot moves meanwhile: when its quotes crossed ours first (the ask refused as post-only,
    // or the bid filled by the bot alone), try again on fresh quotes.
    let traded: number | undefined;
    for (let attempt = 1; attempt <= 3 && traded === undefined; attempt++) {
      const ticker = await waitFor("the bot's quotes on both sides of ETH_USDT", async () => {
        const quotes = (await (
          await fetch(`${platform.urls.exchange}/api/tickers?currencyPairCode=ETH_USDT`)
        ).json()) as { bidPrice: number | null; askPrice: number | null };
        return quotes.bidPrice && quotes.askPrice
          ? { bidPrice: quotes.bidPrice, askPrice: quotes.askPrice }
          : undefined;
      });
      const price = Number(((ticker.bidPrice + ticker.askPrice) / 2).toFixed(2));
      const before = await rowsAt(price);
      const order = { currencyPairCode: "ETH_USDT", amount: String(amount), price: price.toFixed(2) };
      const ask = await exchange.signed(as("trader-1"), "POST", "/api/orders", {
        ...order,
        isBid: false,
        postOnly: true,
      });
      if (ask.status !== 201) continue;
      const bid = await exchange.signed(as("trader-2"), "POST", "/api/orders", {
        ...order,
        isBid: true,
        timeInForce: "IOC",
      });
      assert.equal(bid.status, 201, bid.text);
      const left = await exchange.signed(as("trader-1"), "GET", `/api/orders/${ask.body.id}`);
      if (left.body.remainingAmount === amount) {
        await exchange.signed(as("trader-1"), "DELETE", `/api/orders/${ask.body.id}`);
        continue;
      }
      // The ask was taken: a deal at its price, which a row on the page shows without a reload.
      // On a timeout, say what the page showed: its stream badge and its newest trades.
      let seen = "";
      await waitUntil(
        `a trade row at ${price} (deal ${bid.body.id ?? ""})`,
        async () => {
          const badge = await page.locator("h1").first().textContent();
          const prices = await page
            .locator("section[aria-labelledby=deals-heading] tbody tr td:nth-child(3)")
            .allTextContents();
          seen = `heading: ${badge}; newest trades: ${prices.slice(0, 8).join(" | ")}`;
          return (await rowsAt(price)) > before;
        },
        { timeoutMs: SHOWN_WITHIN_MS, intervalMs: 250, context: () => seen },
      );
      traded = price;
    }
    assert.ok(traded !== undefined, "three tries, and the bot crossed the test's orders each time");
    assert.equal(await page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument), true);
    await screenshot(page, "market-live");
    assert.deepEqual(problems.take(), []);
  });
});
