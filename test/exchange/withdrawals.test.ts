/**
 * Withdrawals sent on-chain by the hot wallet (Hardhat account #15) through the relayer, against a
 * real local chain: a USDT withdrawal goes pending -> sent -> completed and the receiving address
 * holds amount - fee; one that reverts (the hot wallet lacks the tokens) is failed and refunded to
 * the unit; one above the approval threshold waits for an operator, who approves or rejects it;
 * bad input (a malformed address, a failed EIP-55 checksum, the exchange's own addresses, an
 * unknown currency, too many decimals, over the daily limit) is refused with a stable code and
 * holds nothing. Then the kill test: an exchange child process SIGKILLs itself at each step
 * (WITHDRAWAL_FAULT_AT: journalled, broadcast, sent) and after a restart exactly one transfer
 * reached the chain and the withdrawal completed. PGlite only (the chain dominates the runtime).
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  parseAbiItem,
  parseUnits,
  stringToBytes,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, it } from "vitest";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { depositAddress } from "../../lib/deposit-address.ts";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { startExchangeProcess } from "../../support/exchange/process.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { type Chain, deployAndSeed, makeRunDir, removeRunDir, startChain } from "../../support/ecosystem/harness.ts";
import { freePort } from "../../support/net/free-port.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const HOT_WALLET = mnemonicToAccount(MNEMONIC, { addressIndex: 15 });
const FUNDER = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
/** What the hot wallet holds of USDT at first: a withdrawal of more waits for a top-up. */
const HOT_WALLET_USDT = 100_000n * 10n ** 6n;
const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** A fresh receiving address per case (never one of the exchange's). */
let recipients = 0;
const recipient = (): Address => getAddress(`0x${(0xa11ce000 + ++recipients).toString(16).padStart(40, "0")}`);

describe("withdrawals on a local chain", () => {
  let runDir: string;
  let chain: Chain;
  let deployment: Awaited<ReturnType<typeof deployAndSeed>>["deployment"];
  let closeHardhat: (() => Promise<void>) | undefined;
  let miner: ReturnType<typeof setInterval> | undefined;
  let backend: Backend;
  let server: RunningExchange | undefined;
  let api: SigningClient;
  let user: Credentials;
  const logs: string[] = [];
  const publicClient = () => createPublicClient({ chain: hardhat, transport: http(chain.url) });
  const usdt = () => deployment.contracts.MockStableToken as Address;

  const chainVars = () => ({
    CHAIN_GATEWAY: "true",
    RPC_URL: chain.url,
    CHAIN_POLL_MS: "100",
    DEPOSIT_CONFIRMATIONS: "2",
  });

  beforeAll(async () => {
    runDir = await makeRunDir("withdrawals");
    chain = await startChain(runDir);
    const deployed = await deployAndSeed(chain, runDir, { seed: false });
    deployment = deployed.deployment;
    closeHardhat = deployed.close;
    // The hot wallet has Hardhat's 10,000 ETH; it gets its USDT from the mock's open mint.
    const wallet = createWalletClient({ account: FUNDER, chain: hardhat, transport: http(chain.url) });
    const hash = await wallet.writeContract({
      address: usdt(),
      abi: [parseAbiItem("function mint(address to, uint256 amount)")],
      functionName: "mint",
      args: [HOT_WALLET.address, HOT_WALLET_USDT],
    });
    await publicClient().waitForTransactionReceipt({ hash });
    // Automine mines a block per transaction only: a block every 250 ms makes confirmations come.
    miner = setInterval(() => void chain.rpc("evm_mine").catch(() => {}), 250);
    backend = await createBackend("pglite", chainVars());
    server = await startExchange(backend.env, {
      log: (line) => logs.push(line),
      beforeLoad: seedFixtureBeforeLoad,
      deploymentsRoot: runDir,
    });
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!, { timeoutMs: 10_000 });
    user = await api.user(0, { USDT: "1000000", ETH: "3000" });
  }, 120_000);

  afterAll(async () => {
    if (miner) clearInterval(miner);
    await server?.close();
    await closeHardhat?.();
    await chain?.stop();
    await backend?.cleanup();
    await removeRunDir(runDir);
  });

  const withdraw = (body: Record<string, unknown>, who: Credentials = user) =>
    api.signed(who, "POST", "/api/withdrawals", body);
  const find = async (id: string, who: Credentials = user) => {
    const page = await api.signed(who, "GET", "/api/withdrawals?pageSize=100");
    assert.equal(page.status, 200, page.text);
    return (page.body.items as any[]).find((w) => w.id === id);
  };
  const balance = async (currency: string, who: Credentials = user) => {
    const res = await api.signed(who, "GET", "/api/balances");
    return (res.body as any[]).find((b) => b.currencyCode === currency) as { available: number; locked: number };
  };
  /** Polls the withdrawal until `done`, recording every status seen. */
  const until = async (id: string, done: (w: any) => boolean, timeoutMs = 30_000, who = user) => {
    const seen: string[] = [];
    const end = Date.now() + timeoutMs;
    for (;;) {
      const w = await find(id, who);
      if (seen.at(-1) !== w.status) seen.push(w.status);
      if (done(w)) return { w, seen };
      if (Date.now() > end) assert.fail(`withdrawal ${id}: ${JSON.stringify(w)} (seen ${seen})\n${logs.join("\n")}`);
      await sleep(50);
    }
  };
  const usdtOf = (address: Address) =>
    publicClient().readContract({ address: usdt(), abi: erc20Abi, functionName: "balanceOf", args: [address] });
  const transfersTo = async (address: Address) =>
    (
      await publicClient().getLogs({
        address: usdt(),
        event: TRANSFER,
        args: { to: address },
        fromBlock: 0n,
        toBlock: "latest",
      })
    ).length;

  it("sends a USDT withdrawal: pending -> sent -> completed, and the address receives amount - fee", async () => {
    const to = recipient();
    const before = await balance("USDT");
    const res = await withdraw({ currencyCode: "USDT", amount: "100", address: to });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, "pending");
    assert.equal(res.body.txHash, null);
    assert.equal(res.body.approvalRequired, false);
    assert.equal((await balance("USDT")).available, before.available - 100);
    const { w, seen } = await until(res.body.id, (x) => x.status === "completed");
    // Whatever the polls caught, in the order pending -> sent -> completed, never back.
    assert.deepEqual(
      seen,
      ["pending", "sent", "completed"].filter((s) => seen.includes(s)),
      `statuses ${seen}`,
    );
    assert.match(w.txHash, /^0x[0-9a-f]{64}$/);
    assert.ok(w.sentAt !== null && w.completedAt !== null);
    const receipt = await publicClient().getTransactionReceipt({ hash: w.txHash });
    assert.equal(receipt.status, "success");
    assert.equal(receipt.from.toLowerCase(), HOT_WALLET.address.toLowerCase());
    assert.ok((await publicClient().getBlockNumber()) - receipt.blockNumber + 1n >= 2n, "2 confirmations deep");
    assert.equal(await usdtOf(to), parseUnits(String(w.sent), 6));
    assert.equal(await usdtOf(to), parseUnits("100", 6) - parseUnits(String(w.fee), 6));
    assert.equal(await transfersTo(to), 1);
  });

  it("shows a sent withdrawal's confirmation count while it deepens", async () => {
    const to = recipient();
    const res = await withdraw({ currencyCode: "USDT", amount: "10", address: to });
    assert.equal(res.status, 201, res.text);
    const { w } = await until(
      res.body.id,
      (x) => x.status === "completed" || (x.status === "sent" && x.confirmations !== undefined),
    );
    if (w.status === "sent") assert.ok(Number.isInteger(w.confirmations) && w.confirmations >= 0);
    await until(res.body.id, (x) => x.status === "completed");
  });

  it("waits for approval above the threshold, then for the hot wallet to hold enough, then sends", async () => {
    const to = recipient();
    // 200,000 USDT: above the 50,000 threshold, and more than the hot wallet holds.
    const res = await withdraw({ currencyCode: "USDT", amount: "200000", address: to });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.approvalRequired, true);
    await sleep(600);
    const waiting = await find(res.body.id);
    assert.equal(waiting.status, "pending", "not sent before an operator approves");
    assert.equal(waiting.txHash, null);
    assert.equal(waiting.waitingReason, undefined, "an operator's approval is shown by approvalRequired, not a reason");
    const listed = await api.admin("GET", "/admin/withdrawals?awaiting=true");
    assert.equal(listed.status, 200, listed.text);
    assert.ok((listed.body as any[]).some((x) => x.id === res.body.id && x.userId === user.userId));
    const approved = await api.admin("POST", `/admin/withdrawals/${res.body.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.ok(approved.body.approvedAt !== null);
    const again = await api.admin("POST", `/admin/withdrawals/${res.body.id}/approve`);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, "WITHDRAWAL_NOT_PENDING");
    // The hot wallet is short: the withdrawal waits (a transfer would revert), nothing is sent.
    await sleep(1_500);
    const short = await find(res.body.id);
    assert.equal(short.status, "pending");
    assert.equal(await transfersTo(to), 0);
    assert.ok(logs.some((line) => line.includes("waiting for a sweep or a top-up")));
    assert.match(
      short.waitingReason,
      /^the hot wallet holds \d+ of the \d+ base units of USDT to send; waiting for a sweep or a top-up$/,
    );
    // A top-up (a sweep would do the same) and it goes.
    const wallet = createWalletClient({ account: FUNDER, chain: hardhat, transport: http(chain.url) });
    await publicClient().waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: usdt(),
        abi: [parseAbiItem("function mint(address to, uint256 amount)")],
        functionName: "mint",
        args: [HOT_WALLET.address, 200_000n * 10n ** 6n],
      }),
    });
    const { w } = await until(res.body.id, (x) => x.status === "completed", 60_000);
    assert.equal(await usdtOf(to), parseUnits(String(w.sent), 6));
    assert.equal(w.waitingReason, undefined);
  });

  it("paused by the operator, a withdrawal waits pending with its reason; resumed, it is sent", async () => {
    assert.deepEqual((await api.admin("GET", "/admin/withdrawal-sending")).body, { paused: false });
    const bad = await api.admin("POST", "/admin/withdrawal-sending", { paused: 1 });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, "INVALID_PARAM");
    assert.equal(bad.body.message, "paused: must be true or false");
    const paused = await api.admin("POST", "/admin/withdrawal-sending", { paused: true });
    assert.equal(paused.status, 200, paused.text);
    assert.deepEqual(paused.body, { paused: true });
    const to = recipient();
    const before = await balance("USDT");
    const res = await withdraw({ currencyCode: "USDT", amount: "10", address: to });
    assert.equal(res.status, 201, res.text);
    assert.equal((await balance("USDT")).available, before.available - 10, "taken and held while paused");
    await sleep(1_500);
    const held = await find(res.body.id);
    assert.equal(held.status, "pending");
    assert.equal(held.txHash, null);
    assert.match(held.waitingReason, /paused by the operator/);
    assert.equal(await transfersTo(to), 0);
    assert.ok(logs.some((line) => line.includes("withdrawal sending paused by the operator")));
    const resumed = await api.admin("POST", "/admin/withdrawal-sending", { paused: false });
    assert.deepEqual(resumed.body, { paused: false });
    const { w } = await until(res.body.id, (x) => x.status === "completed", 60_000);
    assert.equal(w.waitingReason, undefined);
    assert.equal(await usdtOf(to), parseUnits(String(w.sent), 6));
  });

  it("a withdrawal whose transaction reverts on-chain is failed and refunded exactly", async () => {
    const before = await balance("ETH");
    // The USDT contract takes no coin: sending ETH to it reverts.
    const res = await withdraw({ currencyCode: "ETH", amount: "1", address: usdt() });
    assert.equal(res.status, 201, res.text);
    const { w } = await until(res.body.id, (x) => x.status === "failed");
    assert.match(w.failureReason, /reverted/);
    assert.match(w.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal((await publicClient().getTransactionReceipt({ hash: w.txHash })).status, "reverted");
    assert.deepEqual(await balance("ETH"), before, "amount and fee back to available");
    const ledger = await api.admin("GET", "/admin/ledger");
    assert.ok(
      (ledger.body as any[]).every((row) => row.balanced),
      JSON.stringify(ledger.body),
    );
  });

  it("an operator's rejection fails and refunds a withdrawal waiting for approval; nothing is sent", async () => {
    const to = recipient();
    const before = await balance("USDT");
    const res = await withdraw({ currencyCode: "USDT", amount: "60000", address: to });
    assert.equal(res.status, 201, res.text);
    const rejected = await api.admin("POST", `/admin/withdrawals/${res.body.id}/reject`, { reason: "risk check" });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, "failed");
    assert.equal(rejected.body.failureReason, "rejected by an operator: risk check");
    assert.deepEqual(await balance("USDT"), before);
    const twice = await api.admin("POST", `/admin/withdrawals/${res.body.id}/reject`, {});
    assert.equal(twice.body.code, "WITHDRAWAL_NOT_PENDING");
    const unknown = await api.admin("POST", "/admin/withdrawals/00000000-0000-4000-8000-000000000000/approve");
    assert.equal(unknown.status, 404);
    await sleep(500);
    assert.equal(await transfersTo(to), 0);
    const failed = await api.admin("GET", "/admin/withdrawals?status=failed");
    assert.ok((failed.body as any[]).some((x) => x.id === res.body.id));
  });

  it("refuses bad input with a stable code and holds nothing", async () => {
    const before = await balance("USDT");
    const good = recipient();
    const ownDeposit = depositAddress(
      deployment.contracts.DepositForwarderFactory as Address,
      deployment.contracts.DepositForwarder as Address,
      keccak256(stringToBytes(`deposit:${user.userId}`)),
    );
    const lower = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    const badChecksum = getAddress(lower).replace("C51812", "c51812");
    const cases: [string, Record<string, unknown>, number, string, RegExp?][] = [
      ["malformed", { address: "0xabc" }, 400, "INVALID_PARAM", /^address: must be 0x/],
      ["not hex", { address: `0x${"zz".repeat(20)}` }, 400, "INVALID_PARAM", /^address/],
      ["bad checksum", { address: badChecksum }, 400, "INVALID_PARAM", /^address: fails its EIP-55 checksum/],
      ["the hot wallet", { address: HOT_WALLET.address }, 400, "INVALID_PARAM", /^address: is the exchange's own/],
      [
        "the factory",
        { address: deployment.contracts.DepositForwarderFactory },
        400,
        "INVALID_PARAM",
        /^address: is the exchange's own/,
      ],
      ["a deposit address", { address: ownDeposit }, 400, "INVALID_PARAM", /deposit address/],
      ["unknown currency", { currencyCode: "NOPE" }, 400, "UNKNOWN_CURRENCY"],
      ["too many decimals", { amount: "10.1234567" }, 400, "INVALID_PARAM", /^amount/],
      ["no chain asset", { currencyCode: "ALPHA", amount: "20" }, 400, "WITHDRAWALS_DISABLED"],
    ];
    for (const [what, override, status, code, message] of cases) {
      const res = await withdraw({ currencyCode: "USDT", amount: "10", address: good, ...override });
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.body.code, code, `${what}: ${res.text}`);
      if (message) assert.match(res.body.message, message, what);
    }
    // A checksummed address (correct) is taken.
    const checksummed = await withdraw({ currencyCode: "USDT", amount: "10", address: getAddress(lower) });
    assert.equal(checksummed.status, 201, checksummed.text);
    await until(checksummed.body.id, (x) => x.status === "completed");
    const after = await balance("USDT");
    assert.equal(after.available, before.available - 10, "only the good withdrawal held anything");
    assert.equal(await transfersTo(good), 0);
  });

  it("refuses a withdrawal over the daily limit (rolling 24 h, pending ones counted, failed ones not)", async () => {
    const before = await balance("ETH");
    // ETH: max 1,000 a withdrawal, 2,000 a day, approval above 50: these wait, and count.
    const a = await withdraw({ currencyCode: "ETH", amount: "1000", address: recipient() });
    const b = await withdraw({ currencyCode: "ETH", amount: "999", address: recipient() });
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    const over = await withdraw({ currencyCode: "ETH", amount: "1.5", address: recipient() });
    assert.equal(over.status, 400, over.text);
    assert.equal(over.body.code, "DAILY_LIMIT_EXCEEDED");
    assert.match(over.body.message, /daily withdrawal limit is 2000/);
    assert.equal((await balance("ETH")).available, before.available - 1999, "the refused one held nothing");
    // A rejected (failed) withdrawal no longer counts.
    assert.equal((await api.admin("POST", `/admin/withdrawals/${b.body.id}/reject`, {})).status, 200);
    const now = await withdraw({ currencyCode: "ETH", amount: "1.5", address: recipient() });
    assert.equal(now.status, 201, now.text);
    assert.equal((await api.admin("POST", `/admin/withdrawals/${a.body.id}/reject`, {})).status, 200);
    await until(now.body.id, (x) => x.status === "completed");
  });

  it("tells the aggregator what the gateway can send and watch for, with the limits", async () => {
    const res = await fetch(`${server!.url}/api/marketdata/getaggregator/asset`);
    const assets = (await res.json()) as Record<string, any>;
    assert.equal(assets.USDT.can_withdraw, true);
    assert.equal(assets.USDT.daily_withdraw_limit, 2000000);
    assert.equal(assets.USDT.withdraw_approval_threshold, 50000);
    assert.equal(assets.ETH.can_withdraw, true);
    assert.equal(assets.ALPHA.can_withdraw, false, "the fixture's ALPHA has no contract on this chain");
    assert.equal(assets.USDT.can_deposit, true);
    assert.equal(assets.ALPHA.can_deposit, false, "nothing to watch for without a contract");
  });

  describe("the kill test: SIGKILLed at each step, sent exactly once after a restart", () => {
    let child: ChildProcess | undefined;
    let killBackend: Backend;
    let port: number;
    let killUser: Credentials;
    let killApi: SigningClient;

    beforeAll(async () => {
      // One hot wallet, one relayer: the in-process exchange stops first.
      await server?.close();
      server = undefined;
      killBackend = await createBackend("pglite", { ...chainVars(), EXCHANGE_DEMO: "true" });
      port = await freePort();
    }, 60_000);
    afterAll(async () => {
      child?.kill("SIGKILL");
      await killBackend?.cleanup();
    });

    const start = async (fault?: string) => {
      const vars: Record<string, string> = { ...killBackend.vars, EXCHANGE_PORT: String(port) };
      if (fault) vars.WITHDRAWAL_FAULT_AT = fault;
      const started = await startExchangeProcess(port, vars, [], runDir);
      child = started.child;
      killApi = new SigningClient(`http://127.0.0.1:${port}`, killBackend.vars.EXCHANGE_ADMIN_TOKEN, {
        timeoutMs: 10_000,
      });
      return started;
    };

    for (const step of ["journalled", "broadcast", "sent"] as const) {
      it(`killed at "${step}": one transfer on-chain, completed after the restart`, async () => {
        const started = await start(step);
        killUser ??= await killApi.user(0, { USDT: "100000" });
        const to = recipient();
        const exited = new Promise<string | null>((resolve) =>
          started.child.once("exit", (_code, signal) => resolve(signal)),
        );
        const res = await killApi.signed(killUser, "POST", "/api/withdrawals", {
          currencyCode: "USDT",
          amount: "50",
          address: to,
        });
        assert.equal(res.status, 201, res.text);
        const signal = await Promise.race([exited, sleep(20_000).then(() => "timeout")]);
        assert.equal(signal, "SIGKILL", `the child did not kill itself at ${step}:\n${started.output()}`);
        assert.match(started.output(), new RegExp(`WITHDRAWAL_FAULT_AT=${step}`));
        const onChainAtKill = await transfersTo(to);
        // journalled: nothing broadcast yet; later steps: the transfer is out.
        if (step === "journalled") assert.equal(onChainAtKill, 0);
        else assert.equal(onChainAtKill, 1);

        const restarted = await start();
        const end = Date.now() + 30_000;
        let w: any;
        for (;;) {
          const page = await killApi.signed(killUser, "GET", "/api/withdrawals?pageSize=100");
          w = (page.body.items as any[]).find((x) => x.id === res.body.id);
          if (w?.status === "completed" || w?.status === "failed") break;
          if (Date.now() > end) assert.fail(`not completed: ${JSON.stringify(w)}\n${restarted.output()}`);
          await sleep(100);
        }
        assert.equal(w.status, "completed", restarted.output());
        // Give a (wrong) second send time to show up before counting.
        await sleep(800);
        assert.equal(await transfersTo(to), 1, "exactly one transfer reached the chain");
        assert.equal(await usdtOf(to), parseUnits(String(w.sent), 6));
        const receipt = await publicClient().getTransactionReceipt({ hash: w.txHash });
        assert.equal(receipt.status, "success");
        child!.kill("SIGTERM");
        await new Promise((resolve) => child!.once("exit", resolve));
        child = undefined;
      }, 90_000);
    }
  });
});
