/**
 * Deposits seen on a real local chain (Hardhat node, contracts deployed): each user's deposit
 * address is the factory's CREATE2 forwarder address; a USDT transfer to it shows `pending` with
 * its confirmation count, then `credited` after DEPOSIT_CONFIRMATIONS (2) blocks, once. A
 * deposit reorganised away before its confirmations (evm_revert) is never credited; one
 * reorganised after is reported for an operator, and its credit stands (exchange/README.md). The
 * native coin and its wrapped token credit ETH. The node going away (a blackholed proxy) leaves
 * the API answering and the watcher catching up when it is back; a restart resumes from the
 * cursor without crediting anything twice. GET /admin/reserves compares the ledger with the chain.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type Address, createPublicClient, createWalletClient, erc20Abi, http, parseAbi, parseUnits } from "viem";
import { hardhat } from "viem/chains";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { depositSaltOf } from "../../exchange/adapters/chain/index.ts";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import {
  type Chain,
  deployAndSeed,
  makeRunDir,
  removeRunDir,
  startChain,
  stopAll,
} from "../../support/ecosystem/harness.ts";
import { TcpProxy } from "../../support/net/tcp-proxy.ts";
import { waitFor } from "../../support/wait.ts";
import { exchangeEnv, parseEnv } from "../../config/env.ts";

const factoryAbi = parseAbi(["function depositAddress(bytes32 salt) view returns (address)"]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)", "function deposit() payable"]);

describe("deposits from the chain", () => {
  let runDir: string;
  let chain: Chain;
  let proxy: TcpProxy;
  let backend: Backend;
  let server: RunningExchange;
  let api: SigningClient;
  let user: Credentials;
  let usdt: Address;
  let weth: Address;
  let factory: Address;
  let depositAddress: Address;
  let sender: Address;
  const logs: string[] = [];

  const publicClient = () => createPublicClient({ chain: hardhat, transport: http(chain.url) });
  const wallet = () => createWalletClient({ chain: hardhat, transport: http(chain.url) });

  const start = async (extra: Record<string, string> = {}) => {
    const env = parseEnv(exchangeEnv, {
      ...backend.vars,
      // Sweeps wait (a sweep in flight under evm_revert would only muddle the reorg cases).
      DEPOSIT_SWEEP_INTERVAL_MS: "86400000",
      ...extra,
      CHAIN_GATEWAY: "true",
      RPC_URL: `http://127.0.0.1:${proxy.port}`,
      CHAIN_POLL_MS: "100",
      CHAIN_RPC_TIMEOUT_MS: "1000",
    });
    server = await startExchange(env, {
      log: (line) => logs.push(line),
      beforeLoad: seedFixtureBeforeLoad,
      deploymentsRoot: runDir,
    });
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!, { timeoutMs: 10_000 });
  };

  /** Sends `amount` USDT (decimal) from the funded sender to `to`; resolves once mined. */
  const sendUsdt = async (to: Address, amount: string) => {
    const hash = await wallet().writeContract({
      account: sender,
      address: usdt,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, parseUnits(amount, 6)],
    });
    await publicClient().waitForTransactionReceipt({ hash });
    return hash.toLowerCase();
  };
  const mine = (blocks = 1) => Promise.all(Array.from({ length: blocks }, () => chain.rpc("evm_mine")));
  const deposits = async () => {
    const answer = await api.signed(user, "GET", "/api/deposits?pageSize=100");
    assert.equal(answer.status, 200, answer.text);
    return answer.body.items as {
      id: string;
      currencyCode: string;
      amount: number;
      fee: number;
      credited: number;
      status: string;
      txHash: string | null;
      confirmations: number | null;
      requiredConfirmations: number | null;
    }[];
  };
  const available = async (currency: string) => {
    const answer = await api.signed(user, "GET", "/api/balances");
    return String(answer.body.find((b: { currencyCode: string }) => b.currencyCode === currency)?.available ?? 0);
  };
  /** Waits until the watcher applied the chain's head. */
  const caughtUp = async () => {
    const head = await chain.blockNumber();
    await waitFor(`the watcher at block ${head}`, () => (server.gateway!.watcherStatus().applied ?? -1) >= head, {
      timeoutMs: 15_000,
    });
  };

  beforeAll(async () => {
    runDir = await makeRunDir("deposits");
    chain = await startChain(runDir);
    const deployed = await deployAndSeed(chain, runDir, { seed: false });
    await deployed.close();
    usdt = deployed.deployment.contracts.MockStableToken as Address;
    weth = deployed.deployment.contracts.WrappedNative as Address;
    factory = deployed.deployment.contracts.DepositForwarderFactory as Address;
    const accounts = await chain.rpc<Address[]>("eth_accounts");
    sender = accounts[5]!;
    const mint = await wallet().writeContract({
      account: sender,
      address: usdt,
      abi: mintAbi,
      functionName: "mint",
      args: [sender, parseUnits("1000000", 6)],
    });
    await publicClient().waitForTransactionReceipt({ hash: mint });
    proxy = await TcpProxy.start({ host: "127.0.0.1", port: Number(new URL(chain.url).port) });
    backend = await createBackend("pglite");
    await start();
    user = await api.user(0);
    const answer = await api.signed(user, "GET", "/api/deposits/address?currencyCode=USDT");
    assert.equal(answer.status, 200, answer.text);
    depositAddress = answer.body.address;
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await backend?.cleanup();
    await stopAll();
    if (runDir) await removeRunDir(runDir);
  });

  it("gives each user one deposit address: the factory's, for every currency, on every call", async () => {
    const { body } = await api.signed(user, "GET", "/api/deposits/address?currencyCode=USDT");
    assert.deepEqual(body, { currencyCode: "USDT", chainId: 31337, address: depositAddress, confirmations: 2 });
    const eth = await api.signed(user, "GET", "/api/deposits/address?currencyCode=ETH");
    assert.equal(eth.body.address, depositAddress);
    const onChain = await publicClient().readContract({
      address: factory,
      abi: factoryAbi,
      functionName: "depositAddress",
      args: [depositSaltOf(user.userId)],
    });
    assert.equal(onChain, depositAddress, "the address the factory deploys the forwarder at");
    const other = await api.user(0);
    const theirs = await api.signed(other, "GET", "/api/deposits/address?currencyCode=USDT");
    assert.notEqual(theirs.body.address, depositAddress);

    const unknown = await api.signed(user, "GET", "/api/deposits/address?currencyCode=NOPE");
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, "UNKNOWN_CURRENCY");
    // The fixture's ALPHA has no contract on this chain: no deposits.
    const alpha = await api.signed(user, "GET", "/api/deposits/address?currencyCode=ALPHA");
    assert.equal(alpha.status, 400);
    assert.equal(alpha.body.code, "DEPOSITS_DISABLED");
    const bad = await api.signed(user, "GET", "/api/deposits/address?currencyCode=us-dt");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_PARAM");
  });

  it("shows a USDT deposit pending with its confirmations, then credits it once", async () => {
    const before = await available("USDT");
    assert.equal(before, "0");
    const tx = await sendUsdt(depositAddress, "25");
    const pending = await waitFor("the deposit pending", async () =>
      (await deposits()).find((d) => d.txHash === tx && d.status === "pending"),
    );
    assert.equal(pending.confirmations, 1);
    assert.equal(pending.requiredConfirmations, 2);
    assert.equal(pending.amount, 25);
    assert.equal(await available("USDT"), "0", "not on the balance while pending");

    await mine();
    const credited = await waitFor(
      "the deposit credited",
      async () => (await deposits()).find((d) => d.txHash === tx && d.status === "credited"),
      { timeoutMs: 10_000 },
    );
    assert.equal(credited.confirmations, 2);
    assert.equal(credited.amount, 25);
    assert.equal(credited.credited + credited.fee, 25);
    assert.equal(await available("USDT"), String(credited.credited));

    await mine(3);
    await caughtUp();
    const all = await deposits();
    assert.equal(all.filter((d) => d.txHash === tx).length, 1, "one entry for the transfer");
    assert.equal(await available("USDT"), String(credited.credited), "credited once");
  });

  it("never credits a deposit reorganised away before its confirmations", async () => {
    const before = await available("USDT");
    const snapshot = await chain.rpc<string>("evm_snapshot");
    const tx = await sendUsdt(depositAddress, "7");
    await waitFor("the deposit pending", async () => (await deposits()).some((d) => d.txHash === tx));
    assert.equal(await chain.rpc("evm_revert", [snapshot]), true);
    await mine(4);
    await caughtUp();
    await sleep(300);
    assert.equal((await deposits()).filter((d) => d.txHash === tx).length, 0, "dropped, not credited");
    assert.equal(await available("USDT"), before);
    assert.ok(logs.some((line) => line.includes("reorganised away before its confirmations")));
  });

  it("reports a credited deposit that a deeper reorganisation removes, and keeps its credit", async () => {
    const snapshot = await chain.rpc<string>("evm_snapshot");
    const tx = await sendUsdt(depositAddress, "3");
    await mine();
    await waitFor("the deposit credited", async () =>
      (await deposits()).some((d) => d.txHash === tx && d.status === "credited"),
    );
    const credited = await available("USDT");
    assert.equal(await chain.rpc("evm_revert", [snapshot]), true);
    await mine(4);
    await caughtUp();
    const { reorgedAfterCredit } = server.gateway!.watcherStatus();
    assert.ok(
      reorgedAfterCredit.some((key) => key.startsWith(tx)),
      `reported: ${reorgedAfterCredit.join(", ")}`,
    );
    assert.equal(await available("USDT"), credited, "the credit stands until an operator acts");
  });

  it("credits the native coin and its wrapped token as ETH", async () => {
    const native = await wallet().sendTransaction({
      account: sender,
      to: depositAddress,
      value: parseUnits("0.5", 18),
    });
    await publicClient().waitForTransactionReceipt({ hash: native });
    const wrap = await wallet().writeContract({
      account: sender,
      address: weth,
      abi: mintAbi,
      functionName: "deposit",
      value: parseUnits("0.25", 18),
    });
    await publicClient().waitForTransactionReceipt({ hash: wrap });
    const wrapped = await wallet().writeContract({
      account: sender,
      address: weth,
      abi: erc20Abi,
      functionName: "transfer",
      args: [depositAddress, parseUnits("0.25", 18)],
    });
    await publicClient().waitForTransactionReceipt({ hash: wrapped });
    await mine();
    const eth = await waitFor("both ETH deposits credited", async () => {
      const rows = (await deposits()).filter((d) => d.currencyCode === "ETH" && d.status === "credited");
      return rows.length === 2 && rows;
    });
    assert.deepEqual(eth.map((d) => d.amount).sort(), [0.25, 0.5]);
    assert.deepEqual(eth.map((d) => d.txHash).sort(), [native.toLowerCase(), wrapped.toLowerCase()].sort());
  });

  it("keeps answering while the node is away and catches up when it is back", async () => {
    proxy.blackhole();
    const tx = await sendUsdt(depositAddress, "4");
    await mine();
    const started = Date.now();
    const list = await api.signed(user, "GET", "/api/deposits");
    assert.equal(list.status, 200);
    assert.ok(Date.now() - started < 2_000, "served without the node");
    const reserves = await api.admin("GET", "/admin/reserves");
    assert.equal(reserves.status, 503, reserves.text);
    assert.equal(reserves.body.code, "UNAVAILABLE");
    await waitFor("the watcher to notice", () => server.gateway!.watcherStatus().nodeUp === false, {
      timeoutMs: 10_000,
    });
    proxy.restore();
    await waitFor(
      "the deposit credited after the node came back",
      async () => (await deposits()).some((d) => d.txHash === tx && d.status === "credited"),
      { timeoutMs: 20_000 },
    );
  });

  it("resumes from its cursor after a restart, crediting what was pending once", async () => {
    const tx = await sendUsdt(depositAddress, "6");
    await waitFor("the deposit pending", async () => (await deposits()).some((d) => d.txHash === tx));
    const before = await available("USDT");
    await server.close();
    await mine();
    await start();
    await waitFor("the deposit credited after the restart", async () =>
      (await deposits()).some((d) => d.txHash === tx && d.status === "credited"),
    );
    await mine(2);
    await caughtUp();
    const rows = (await deposits()).filter((d) => d.status === "credited" && d.currencyCode === "USDT");
    assert.equal(new Set(rows.map((d) => d.txHash)).size, rows.length, "no transfer credited twice");
    const credited = rows.find((d) => d.txHash === tx)!;
    const expected = (parseUnits(before, 6) + parseUnits(String(credited.credited), 6)).toString();
    assert.equal(parseUnits(await available("USDT"), 6).toString(), expected);
  });

  it("measures reserves: what users are owed against what the chain holds, holes included", async () => {
    const answer = await api.admin("GET", "/admin/reserves");
    assert.equal(answer.status, 200, answer.text);
    const row = answer.body.currencies.find((r: { currencyCode: string }) => r.currencyCode === "USDT");
    const onChain = await publicClient().readContract({
      address: usdt,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [depositAddress],
    });
    assert.ok(parseUnits(row.depositAddresses, 6) >= onChain, "every deposit address counted");
    // Every credited deposit is on-chain except the one a deep reorganisation took back (3 USDT,
    // credited in full: its fee too); the figure shows exactly that hole.
    assert.equal(parseUnits(row.surplus, 6), -parseUnits("3", 6));
    assert.equal(row.covered, false);
    assert.equal(parseUnits(row.onChain, 6), parseUnits(row.hotWallet, 6) + parseUnits(row.depositAddresses, 6));
  });

  it("sweeps credited deposit addresses into the hot wallet; reserves stay the same", async () => {
    const hotWallet = (await api.admin("GET", "/admin/reserves")).body.currencies.find(
      (r: { currencyCode: string }) => r.currencyCode === "USDT",
    );
    const held = await publicClient().readContract({
      address: usdt,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [depositAddress],
    });
    assert.ok(held > 0n);
    // A restart forgets which addresses wait for a sweep: its start-up scan finds them.
    await server.close();
    await start({ DEPOSIT_SWEEP_INTERVAL_MS: "200" });
    await waitFor(
      "the deposit address swept",
      async () =>
        (await publicClient().readContract({
          address: usdt,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [depositAddress],
        })) === 0n,
      { timeoutMs: 20_000 },
    );
    const after = (await api.admin("GET", "/admin/reserves")).body.currencies.find(
      (r: { currencyCode: string }) => r.currencyCode === "USDT",
    );
    assert.equal(parseUnits(after.hotWallet, 6), parseUnits(hotWallet.hotWallet, 6) + held);
    assert.equal(parseUnits(after.depositAddresses, 6), 0n);
    assert.equal(after.surplus, hotWallet.surplus, "a sweep moves coins, it credits nothing");
    const credited = (await deposits()).filter((d) => d.status === "credited").length;
    await mine(3);
    await caughtUp();
    assert.equal((await deposits()).filter((d) => d.status === "credited").length, credited);
  });
});
