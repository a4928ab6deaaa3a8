/**
 * Money conservation with the exchange joined to a real local chain, under an adversary (issue 27,
 * Proof). A random sequence (fast-check; FC_SEED pinned, printed) of on-chain USDT deposits to
 * users' deposit addresses, mined blocks, ETH_USDT trades between users (ETH comes from admin
 * deposits and stays out of the on-chain equation), withdrawals to fresh addresses, and steps that
 * must move nothing: a withdrawal over the balance, to a malformed, bad-checksum or exchange-owned
 * address, a repeated clientWithdrawalId, and a deposit reorganised away before its confirmations.
 * At the end, once every withdrawal is completed or failed and every surviving deposit credited:
 *   (hot wallet + deposit addresses) USDT on-chain - the hot wallet's funding
 *     == users' available + locked + fees, to the base unit,
 * the external recipients hold exactly the completed withdrawals' amount - fee, and
 * /admin/ledger balances. USDT enters only through the chain, so the first line has no slack.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  formatUnits,
  getAddress,
  http,
  parseAbi,
  parseUnits,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, it } from "vitest";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { type Chain, deployAndSeed, makeRunDir, removeRunDir, startChain } from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";

const seed = Number(process.env.FC_SEED ?? 20261127);
const numRuns = Number(process.env.FC_RUNS ?? 2);
const STEPS = Number(process.env.CONSERVATION_STEPS ?? 30);
console.log(`conservation test: FC_SEED=${seed} FC_RUNS=${numRuns} CONSERVATION_STEPS=${STEPS}`);

const MNEMONIC = "test test test test test test test test test test test junk";
const HOT_WALLET = mnemonicToAccount(MNEMONIC, { addressIndex: 15 });
const SENDER = mnemonicToAccount(MNEMONIC, { addressIndex: 5 });
const HOT_WALLET_USDT = 50_000n * 10n ** 6n;
const USERS = 3;
const U = 10n ** 6n;

type Step =
  | { kind: "deposit"; user: number; units: bigint }
  | { kind: "mine"; blocks: number }
  | { kind: "trade"; seller: number; buyer: number; sell: bigint; buy: bigint; price: bigint }
  | { kind: "withdraw"; user: number; units: bigint }
  | { kind: "overBalance"; user: number }
  | { kind: "badAddress"; user: number; which: "malformed" | "checksum" | "ownDeposit" | "otherDeposit" | "hotWallet" }
  | { kind: "repeatClientId"; user: number; units: bigint }
  | { kind: "reorgedDeposit"; user: number; units: bigint };

const user = fc.integer({ min: 0, max: USERS - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("deposit" as const), user, units: fc.bigInt(1n, 2_000n * U) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("trade" as const),
      seller: user,
      buyer: user,
      // ETH amounts in 1e-4 (digitsAmount 4), price in cents (digitsPrice 2).
      sell: fc.bigInt(1n, 20_000n),
      buy: fc.bigInt(1n, 20_000n),
      price: fc.bigInt(1_000n, 300_000n),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("withdraw" as const), user, units: fc.bigInt(5n * U, 900n * U) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("overBalance" as const), user }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("badAddress" as const),
      user,
      which: fc.constantFrom(
        "malformed" as const,
        "checksum" as const,
        "ownDeposit" as const,
        "otherDeposit" as const,
        "hotWallet" as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("repeatClientId" as const), user, units: fc.bigInt(5n * U, 50n * U) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("reorgedDeposit" as const), user, units: fc.bigInt(1n, 500n * U) }),
  },
);
const show = (s: Step) => JSON.stringify(s, (_k, v) => (typeof v === "bigint" ? v.toString() : v));

/** A JSON number of the API (written digit for digit) as base units. */
const units = (value: number | string, decimals = 6) => parseUnits(String(value), decimals);

describe("money conservation: the exchange, its chain and an adversary", () => {
  let runDir: string;
  let chain: Chain;
  let backend: Backend;
  let server: RunningExchange;
  let api: SigningClient;
  let usdt: Address;
  let closeHardhat: (() => Promise<void>) | undefined;
  const logs: string[] = [];
  const users: Credentials[] = [];
  const depositAddresses: Address[] = [];
  const recipients: Address[] = [];
  const withdrawals: { id: string; user: number }[] = [];
  /** Deposit transactions that must end credited. */
  const expectedDeposits = new Set<string>();
  const reorgedDeposits = new Set<string>();
  let hotWalletFunding = 0n;

  const publicClient = () => createPublicClient({ chain: hardhat, transport: http(chain.url) });
  const usdtOf = (address: Address) =>
    publicClient().readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [address] });
  const mine = async (blocks = 1) => {
    for (let i = 0; i < blocks; i++) await chain.rpc("evm_mine");
  };
  const sendUsdt = async (to: Address, amount: bigint) => {
    const wallet = createWalletClient({ account: SENDER, chain: hardhat, transport: http(chain.url) });
    const hash = await wallet.writeContract({
      address: usdt,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, amount],
    });
    await publicClient().waitForTransactionReceipt({ hash });
    return hash.toLowerCase();
  };
  const balances = async (who: number) => {
    const res = await api.signed(users[who]!, "GET", "/api/balances");
    assert.equal(res.status, 200, res.text);
    const row = (c: string) => (res.body as any[]).find((b) => b.currencyCode === c);
    const of = (c: string, d: number) => ({
      available: row(c) ? units(row(c).available, d) : 0n,
      locked: row(c) ? units(row(c).locked, d) : 0n,
    });
    return { usdt: of("USDT", 6), eth: of("ETH", 18) };
  };
  const withdraw = (who: number, body: Record<string, unknown>) =>
    api.signed(users[who]!, "POST", "/api/withdrawals", { currencyCode: "USDT", ...body });
  const freshRecipient = (): Address => {
    const address = getAddress(`0x${(0xc0115e00 + recipients.length + 1).toString(16).padStart(40, "0")}`);
    recipients.push(address);
    return address;
  };
  const depositsOf = async (who: number) => {
    const res = await api.signed(users[who]!, "GET", "/api/deposits?pageSize=100");
    assert.equal(res.status, 200, res.text);
    return res.body.items as { txHash: string | null; status: string; credited: number }[];
  };
  const withdrawalsOf = async (who: number) => {
    const res = await api.signed(users[who]!, "GET", "/api/withdrawals?pageSize=100");
    assert.equal(res.status, 200, res.text);
    return res.body.items as { id: string; status: string; amount: number; fee: number }[];
  };
  const inFlight = async () => {
    let n = 0;
    for (let u = 0; u < USERS; u++)
      n += (await withdrawalsOf(u)).filter((w) => w.status === "pending" || w.status === "sent").length;
    return n;
  };
  /**
   * What an adversarial step must leave as it was: the user's ETH, and USDT net of what moves
   * meanwhile for good reasons (automine makes each withdrawal's transaction a block, which can
   * confirm an earlier deposit; a failed withdrawal is refunded).
   */
  const holdings = async (who: number) => {
    // The reads are not one snapshot: retry until a credit did not land between them.
    for (;;) {
      const credited = async () => {
        let sum = 0n;
        for (const d of await depositsOf(who)) if (d.status === "credited") sum += units(d.credited);
        return sum;
      };
      const first = await credited();
      const b = await balances(who);
      let failed = 0n;
      for (const w of await withdrawalsOf(who)) if (w.status === "failed") failed += units(w.amount);
      if ((await credited()) !== first) continue;
      return {
        eth: b.eth,
        usdt: b.usdt.available + b.usdt.locked - first - failed,
        parts: { ...b.usdt, credited: first, failed },
      };
    }
  };
  const unchanged = async (who: number, before: Awaited<ReturnType<typeof holdings>>, what: string) => {
    const after = await holdings(who);
    assert.deepEqual(
      { eth: after.eth, usdt: after.usdt },
      { eth: before.eth, usdt: before.usdt },
      `${what} moved money: ${show(before.parts as never)} -> ${show(after.parts as never)}`,
    );
  };
  /** Waits until the watcher applied the chain's head. */
  const caughtUp = async () => {
    const head = await chain.blockNumber();
    await waitFor(`the watcher at block ${head}`, () => (server.gateway!.watcherStatus().applied ?? -1) >= head, {
      timeoutMs: 15_000,
    });
  };

  beforeAll(async () => {
    runDir = await makeRunDir("conservation");
    chain = await startChain(runDir);
    const deployed = await deployAndSeed(chain, runDir, { seed: false });
    closeHardhat = deployed.close;
    usdt = deployed.deployment.contracts.MockStableToken as Address;
    const wallet = createWalletClient({ account: SENDER, chain: hardhat, transport: http(chain.url) });
    const mint = parseAbi(["function mint(address to, uint256 amount)"]);
    for (const [to, amount] of [
      [SENDER.address, 10_000_000n * U],
      [HOT_WALLET.address, HOT_WALLET_USDT],
    ] as const) {
      const hash = await wallet.writeContract({ address: usdt, abi: mint, functionName: "mint", args: [to, amount] });
      await publicClient().waitForTransactionReceipt({ hash });
    }
    // Everything the hot wallet holds of USDT before the exchange starts is its funding.
    hotWalletFunding = await usdtOf(HOT_WALLET.address);
    assert.equal(hotWalletFunding, HOT_WALLET_USDT);
    backend = await createBackend("pglite");
    const env = parseEnv(exchangeEnv, {
      ...backend.vars,
      CHAIN_GATEWAY: "true",
      RPC_URL: chain.url,
      CHAIN_POLL_MS: "100",
      DEPOSIT_CONFIRMATIONS: "2",
    });
    server = await startExchange(env, {
      log: (line) => logs.push(line),
      beforeLoad: seedFixtureBeforeLoad,
      deploymentsRoot: runDir,
    });
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!, { timeoutMs: 15_000 });
    for (let u = 0; u < USERS; u++) {
      // ETH from the operator (kept out of the on-chain equation); USDT only from the chain.
      users.push(await api.user(0, { ETH: "100" }));
      const res = await api.signed(users[u]!, "GET", "/api/deposits/address?currencyCode=USDT");
      assert.equal(res.status, 200, res.text);
      depositAddresses.push(res.body.address);
    }
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await closeHardhat?.();
    await chain?.stop();
    await backend?.cleanup();
    if (runDir) await removeRunDir(runDir);
  });

  const run = async (s: Step) => {
    switch (s.kind) {
      case "deposit":
        expectedDeposits.add(await sendUsdt(depositAddresses[s.user]!, s.units));
        return;
      case "mine":
        await mine(s.blocks);
        return;
      case "trade": {
        if (s.seller === s.buyer) return;
        const buyer = await balances(s.buyer);
        const quote = (s.buy * s.price * U) / (10_000n * 100n);
        if (buyer.usdt.available < quote + U) return; // not enough to buy: nothing to try
        const price = formatUnits(s.price, 2);
        const sell = await api.signed(users[s.seller]!, "POST", "/api/orders", {
          isBid: false,
          currencyPairCode: "ETH_USDT",
          amount: formatUnits(s.sell, 4),
          price,
        });
        // Tiny orders may be under the pair's minimum quote: refused, and that is fine.
        if (sell.status !== 201 && sell.body?.code === "MIN_QUOTE_AMOUNT") return;
        assert.equal(sell.status, 201, sell.text);
        const buy = await api.signed(users[s.buyer]!, "POST", "/api/orders", {
          isBid: true,
          currencyPairCode: "ETH_USDT",
          amount: formatUnits(s.buy, 4),
          price,
        });
        if (buy.status !== 201)
          assert.ok(["MIN_QUOTE_AMOUNT", "INSUFFICIENT_BALANCE"].includes(buy.body?.code), buy.text);
        return;
      }
      case "withdraw": {
        const { usdt: mine } = await balances(s.user);
        if (mine.available < s.units) return;
        const res = await withdraw(s.user, { amount: formatUnits(s.units, 6), address: freshRecipient() });
        assert.equal(res.status, 201, res.text);
        withdrawals.push({ id: res.body.id, user: s.user });
        return;
      }
      case "overBalance": {
        const before = await holdings(s.user);
        const amount = formatUnits((await balances(s.user)).usdt.available + 1n, 6);
        const res = await withdraw(s.user, { amount, address: freshRecipient() });
        assert.equal(res.status, 400, res.text);
        assert.ok(["INSUFFICIENT_BALANCE", "BELOW_MIN_WITHDRAW"].includes(res.body.code), res.text);
        await unchanged(s.user, before, "a withdrawal over the balance");
        return;
      }
      case "badAddress": {
        const before = await holdings(s.user);
        const lower = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
        const address = {
          malformed: "0x1234",
          checksum: getAddress(lower).replace("C51812", "c51812"),
          ownDeposit: depositAddresses[s.user]!,
          otherDeposit: depositAddresses[(s.user + 1) % USERS]!,
          hotWallet: HOT_WALLET.address,
        }[s.which];
        const res = await withdraw(s.user, { amount: "5", address });
        assert.equal(res.status, 400, `${s.which}: ${res.text}`);
        assert.equal(res.body.code, "INVALID_PARAM", res.text);
        await unchanged(s.user, before, `a withdrawal to a ${s.which} address`);
        return;
      }
      case "repeatClientId": {
        if ((await balances(s.user)).usdt.available < s.units) return;
        const before = await holdings(s.user);
        const body = {
          amount: formatUnits(s.units, 6),
          address: freshRecipient(),
          clientWithdrawalId: `again-${withdrawals.length}-${recipients.length}`,
        };
        const first = await withdraw(s.user, body);
        assert.equal(first.status, 201, first.text);
        withdrawals.push({ id: first.body.id, user: s.user });
        const again = await withdraw(s.user, body);
        assert.ok(again.status === 200 || again.status === 201, again.text);
        assert.equal(again.body.id, first.body.id, "a repeat returns the first withdrawal");
        const after = await holdings(s.user);
        assert.equal(
          after.usdt,
          before.usdt - s.units,
          `debited once: ${show(before.parts as never)} -> ${show(after.parts as never)}`,
        );
        return;
      }
      case "reorgedDeposit": {
        // A reorganisation must not take in-flight withdrawals with it (that is another test's case).
        await waitFor(
          "withdrawals settled before a reorganisation",
          async () => {
            await mine();
            return (await inFlight()) === 0;
          },
          { timeoutMs: 30_000 },
        );
        const before = await holdings(s.user);
        const snapshot = await chain.rpc<string>("evm_snapshot");
        const tx = await sendUsdt(depositAddresses[s.user]!, s.units);
        await waitFor("the doomed deposit seen pending", async () =>
          (await depositsOf(s.user)).some((d) => d.txHash === tx),
        );
        assert.equal(await chain.rpc("evm_revert", [snapshot]), true);
        reorgedDeposits.add(tx);
        await mine(3);
        await caughtUp();
        await unchanged(s.user, before, "a deposit reorganised away");
        return;
      }
    }
  };

  it("keeps every USDT base unit accounted for across the chain and the ledger", async () => {
    const done: string[] = [];
    await fc.assert(
      // noBias: with so few runs, fast-check's small-value bias would make most steps no-ops.
      fc.asyncProperty(fc.noBias(fc.array(step, { minLength: STEPS, maxLength: STEPS })), async (random) => {
        // Every user starts with a deposit, so trades and withdrawals have money to move.
        const opening = users.map((_, u): Step => ({ kind: "deposit", user: u, units: 3_000n * U + BigInt(u) }));
        const steps = [...opening, { kind: "mine", blocks: 2 } as Step, ...random];
        done.length = 0;
        try {
          for (const s of steps) {
            done.push(show(s));
            await run(s);
          }
          await settle();
          await checkConservation();
          console.log(`conservation: steps (FC_SEED=${seed}):\n${done.join("\n")}`);
        } catch (error) {
          console.error(`conservation: failed after steps (FC_SEED=${seed}):\n${done.join("\n")}`);
          throw error;
        }
      }),
      { seed, numRuns, endOnFailure: true },
    );
  }, 170_000);

  /** Mines until every withdrawal is completed or failed and every surviving deposit credited. */
  const settle = async () => {
    await waitFor(
      "every withdrawal completed or failed, every deposit credited",
      async () => {
        await mine();
        if ((await inFlight()) > 0) return false;
        const credited = new Set<string>();
        for (let u = 0; u < USERS; u++)
          for (const d of await depositsOf(u)) if (d.status === "credited" && d.txHash) credited.add(d.txHash);
        return [...expectedDeposits].every((tx) => credited.has(tx));
      },
      { timeoutMs: 60_000 },
    );
    for (let u = 0; u < USERS; u++)
      for (const d of await depositsOf(u))
        assert.ok(!reorgedDeposits.has(d.txHash ?? ""), `a reorganised deposit is listed: ${JSON.stringify(d)}`);
  };

  const checkConservation = async () => {
    let owed = 0n;
    for (let u = 0; u < USERS; u++) {
      const { usdt: b } = await balances(u);
      owed += b.available + b.locked;
    }
    const ledger = await api.admin("GET", "/admin/ledger");
    assert.equal(ledger.status, 200, ledger.text);
    assert.ok(
      (ledger.body as any[]).every((row) => row.balanced),
      `the ledger balances: ${ledger.text}`,
    );
    const row = (ledger.body as any[]).find((r) => r.currencyCode === "USDT");
    assert.equal(units(row.available) + units(row.locked), owed, "the ledger's totals are the users' balances");
    const fees = units(row.fees);
    assert.equal(units(row.burned), 0n, "no fee holds here");

    let onChain = await usdtOf(HOT_WALLET.address);
    for (const address of depositAddresses) onChain += await usdtOf(address);
    assert.equal(
      onChain - hotWalletFunding,
      owed + fees,
      `on-chain ${onChain} - funding ${hotWalletFunding} vs owed ${owed} + fees ${fees}\n${logs.slice(-30).join("\n")}`,
    );

    let paidOut = 0n;
    let completed = 0;
    for (let u = 0; u < USERS; u++)
      for (const w of await withdrawalsOf(u))
        if (w.status === "completed") {
          completed++;
          paidOut += units(w.amount) - units(w.fee);
        }
    let received = 0n;
    for (const address of recipients) received += await usdtOf(address);
    assert.equal(received, paidOut, "the recipients hold exactly what completed withdrawals sent");
    assert.equal(completed + (await countFailed()), withdrawals.length);
    console.log(
      `conservation: ${withdrawals.length} withdrawals (${completed} completed), ${expectedDeposits.size} deposits, ` +
        `${reorgedDeposits.size} reorganised away; on-chain ${formatUnits(onChain, 6)} USDT = funding + owed ${formatUnits(owed, 6)} + fees ${formatUnits(fees, 6)}`,
    );
  };
  const countFailed = async () => {
    let n = 0;
    for (let u = 0; u < USERS; u++) n += (await withdrawalsOf(u)).filter((w) => w.status === "failed").length;
    return n;
  };
});
