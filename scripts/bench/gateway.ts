/**
 * `npm run bench:gateway`: the exchange joined to its chain (issue 27).
 *
 * 1. A Hardhat node on a free port with automine off; the contracts deployed; the exchange in
 *    this process (CHAIN_GATEWAY=true, PGlite in a temp dir, or a schema of DATABASE_URL), its
 *    deposit watcher polling every CHAIN_POLL_MS (250).
 * 2. Deposits: BENCH_GATEWAY_USERS users; this script mines a block every BENCH_GATEWAY_BLOCK_MS
 *    (1000, the block time) and puts BENCH_GATEWAY_PER_BLOCK USDT transfers to deposit addresses
 *    in each of BENCH_GATEWAY_BLOCKS blocks. Each deposit's lag is from the moment its confirming
 *    block (the one that makes it DEPOSIT_CONFIRMATIONS = 2 deep) was mined to the moment its
 *    credit committed (Exchange.onCommitted). Credits per second: deposits over the time from the
 *    first confirming block to the last credit.
 * 3. Burst: BENCH_GATEWAY_BURST (500) deposits in one block, then its confirming block; credits
 *    per second are the deposits over the time from that block to the last credit (the watcher's
 *    read of a full block, the ledger and the group commits).
 * 4. Withdrawals end to end, automine on (a block per transaction, as a busy chain gives a sent
 *    transfer its next block at once): BENCH_GATEWAY_WITHDRAWALS (200) USDT withdrawals through
 *    the exchange API (signed POSTs, 16 in flight, from 20 users credited by admin deposits, 10
 *    USDT each: under the demo's approval threshold and daily limit) sent by the hot wallet
 *    (Hardhat #15, funded with USDT by the mock's open mint) through the relayer, timed from the
 *    first POST to the moment the hot wallet's Transfer logs on-chain number them all (a getLogs
 *    poll every 20 ms, as for the baselines).
 * 5. BENCH_GATEWAY_ROUNDS (5) rounds, judged on the median round, each of:
 *    - the baseline: the same number of direct USDT transfers from a funded Hardhat account
 *      (consecutive nonces, all sent at once through viem's walletClient: the node signs);
 *    - the like-for-like baseline: the same transfers signed by this script with a key, one
 *      eth_sendRawTransaction each;
 *    - the relayer's own rate (the target's): the same number of withdrawals requested while the
 *      operator has sending paused (POST /admin/withdrawal-sending; they wait pending), then
 *      resumed; timed from the resume until the transfers number them all, and (the target's
 *      figure) from the first of them mined to the last: the direct transfers are all mined when
 *      their sends return, so theirs is a rate from the first reaching the node.
 * Targets: credit lag p99 within one block time of the confirmation; withdrawals sent by the
 * relayer >= 0.8x direct (end to end is reported: its POSTs are the API's ingest, issue 29).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http,
  parseAbi,
  parseAbiItem,
  parseUnits,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange } from "../../exchange/server/start.ts";
import { deployAndSeed, startChain, stopAll } from "../../support/ecosystem/harness.ts";
import { createBackend } from "../../support/exchange/backends.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";
import { percentile } from "./indexer/stats.ts";
import { envInt } from "./env.ts";

const int = envInt;
const USERS = int("BENCH_GATEWAY_USERS", 200);
const BLOCK_MS = int("BENCH_GATEWAY_BLOCK_MS", 1000);
const PER_BLOCK = int("BENCH_GATEWAY_PER_BLOCK", 50);
const BLOCKS = int("BENCH_GATEWAY_BLOCKS", 20);
const BURST = int("BENCH_GATEWAY_BURST", 500);
const WITHDRAWALS = int("BENCH_GATEWAY_WITHDRAWALS", 200);
/** Rounds of the withdrawal comparison (baselines and the backlog each): the median is judged. */
const ROUNDS = int("BENCH_GATEWAY_ROUNDS", 5);
/** Withdrawing users, and requests in flight: each user withdraws WITHDRAWALS / 20 times. */
const WITHDRAWING_USERS = 20;
const IN_FLIGHT = 16;
/** Per withdrawal: the demo USDT's minimum is 5, its approval threshold 50,000 (never reached). */
const WITHDRAWAL_USDT = "10";
const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const HOT_WALLET = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 15,
});
/** The second baseline's key: a script holding a hot wallet's key signs locally, as the relayer does. */
const SCRIPT_KEY = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 6,
});
const CONFIRMATIONS = 2;

const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
const tmp = await mkdtemp(join(tmpdir(), "bench-gateway-"));
const backend = await createBackend(process.env.DATABASE_URL ? "postgres" : "pglite");

try {
  log(`${USERS} users; ${PER_BLOCK} deposits a block for ${BLOCKS} blocks, one every ${BLOCK_MS} ms; ${backend.kind}`);
  const chain = await startChain(tmp);
  const deployed = await deployAndSeed(chain, tmp, { seed: false });
  await deployed.close();
  const usdt = deployed.deployment.contracts.MockStableToken as Address;
  const publicClient = createPublicClient({ chain: hardhat, transport: http(chain.url) });
  // A node holding hundreds of pending transactions answers slowly: generous timeouts.
  const wallet = createWalletClient({ chain: hardhat, transport: http(chain.url, { timeout: 120_000 }) });
  const sender = (await chain.rpc<Address[]>("eth_accounts"))[5]!;
  await publicClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      account: sender,
      address: usdt,
      abi: parseAbi(["function mint(address to, uint256 amount)"]),
      functionName: "mint",
      args: [sender, parseUnits("100000000", 6)],
    }),
  });

  // The signed and per-IP rate limits would throttle the withdrawal stage's one client, not the gateway.
  const vars = parseEnv(exchangeEnv, {
    ...backend.vars,
    CHAIN_GATEWAY: "true",
    RPC_URL: chain.url,
    RATE_LIMIT_PER_MINUTE: "1000000",
    SIGNED_RATE_LIMIT_PER_MINUTE: "1000000",
  });
  const server = await startExchange(vars, {
    log: () => {},
    beforeLoad: seedFixtureBeforeLoad,
    deploymentsRoot: tmp,
  });
  const users = await Promise.all(Array.from({ length: USERS }, () => server.exchange.createUser(0, null)));
  const addresses = users.map((u) => server.gateway!.depositAddress(u.id));
  await chain.rpc("evm_setAutomine", [false]);

  // Deposit id -> when its credit committed.
  const creditedAt = new Map<string, number>();
  server.exchange.onCommitted((units) => {
    const now = performance.now();
    for (const unit of units) for (const row of unit.deposits ?? []) creditedAt.set(row.reference ?? row.id, now);
  });

  // Block n -> when this script mined it; tx hash -> its block.
  const minedAt = new Map<number, number>();
  const sent: { hash: string; block: number }[] = [];
  let nonce = await publicClient.getTransactionCount({ address: sender, blockTag: "pending" });
  const mine = async () => {
    await chain.rpc("evm_mine");
    const n = await chain.blockNumber();
    minedAt.set(n, performance.now());
    return n;
  };
  for (let b = 0; b < BLOCKS + CONFIRMATIONS; b++) {
    const tick = performance.now();
    const batch: Promise<`0x${string}`>[] = [];
    if (b < BLOCKS)
      for (let i = 0; i < PER_BLOCK; i++)
        batch.push(
          wallet.writeContract({
            account: sender,
            address: usdt,
            abi: erc20Abi,
            functionName: "transfer",
            args: [addresses[(b * PER_BLOCK + i) % USERS]!, parseUnits("1", 6)],
            nonce: nonce++,
            gas: 80_000n,
          }),
        );
    const hashes = await Promise.all(batch);
    await sleep(Math.max(0, BLOCK_MS - (performance.now() - tick)));
    const n = await mine();
    for (const hash of hashes) sent.push({ hash: hash.toLowerCase(), block: n });
  }
  const deadline = performance.now() + 60_000;
  while (creditedAt.size < sent.length && performance.now() < deadline) await sleep(50);
  const lags: number[] = [];
  let missing = 0;
  for (const { hash, block } of sent) {
    const at = creditedAt.get(hash);
    const confirmedAt = minedAt.get(block + CONFIRMATIONS - 1);
    if (at === undefined || confirmedAt === undefined) missing++;
    else lags.push(at - confirmedAt);
  }
  lags.sort((a, b) => a - b);
  const firstConfirmation = minedAt.get(sent[0]!.block + CONFIRMATIONS - 1)!;
  const lastCredit = Math.max(...creditedAt.values());
  const rate = (sent.length - missing) / ((lastCredit - firstConfirmation) / 1000);
  const p50 = percentile(lags, 50);
  const p99 = percentile(lags, 99);

  // The burst: one block of BURST deposits, then the block that confirms them.
  const burst: string[] = [];
  for (let i = 0; i < BURST; i += 50)
    burst.push(
      ...(
        await Promise.all(
          Array.from({ length: Math.min(50, BURST - i) }, (_, j) =>
            wallet.writeContract({
              account: sender,
              address: usdt,
              abi: erc20Abi,
              functionName: "transfer",
              args: [addresses[(i + j) % USERS]!, parseUnits("2", 6)],
              nonce: nonce++,
              gas: 80_000n,
            }),
          ),
        )
      ).map((h) => h.toLowerCase()),
    );
  await chain.rpc("evm_mine");
  await sleep(BLOCK_MS);
  await chain.rpc("evm_mine");
  const burstConfirmed = performance.now();
  const burstDeadline = burstConfirmed + 120_000;
  while (burst.some((h) => !creditedAt.has(h)) && performance.now() < burstDeadline) await sleep(20);
  const burstCredited = burst.filter((h) => creditedAt.has(h)).length;
  const burstSeconds = (Math.max(...burst.map((h) => creditedAt.get(h) ?? 0)) - burstConfirmed) / 1000;
  await chain.rpc("evm_setAutomine", [true]);

  // Withdrawals. Every USDT transfer `from` makes after `fromBlock` counts as mined. Seconds from
  // `started` until `count` are mined, and the steady rate: transfers per second from the poll that
  // first saw one mined to the poll that saw them all (a start-up's one-time cost, such as a cold
  // journal's first write, left out). Each poll reads only the blocks the last one did not: this
  // script's thread is the in-process exchange's too, and reading every log from the start each
  // 20 ms took it ~0.3 s per round of the sender.
  const untilMined = async (from: Address, fromBlock: bigint, count: number, started: () => number) => {
    const deadline = performance.now() + 300_000;
    let firstAt: number | undefined;
    let firstCount = 0;
    let mined = 0;
    let next = fromBlock;
    for (;;) {
      const head = await publicClient.getBlockNumber({ cacheTime: 0 });
      if (head >= next) {
        mined += (
          await publicClient.getLogs({ address: usdt, event: TRANSFER, args: { from }, fromBlock: next, toBlock: head })
        ).length;
        next = head + 1n;
      }
      const t = performance.now();
      if (mined > 0 && firstAt === undefined) [firstAt, firstCount] = [t, mined];
      if (mined >= count)
        return {
          seconds: (t - started()) / 1000,
          steady: t > firstAt! ? (mined - firstCount) / ((t - firstAt!) / 1000) : Number.POSITIVE_INFINITY,
        };
      if (t > deadline) throw new Error(`only ${mined} of ${count} transfers mined from ${from}`);
      await sleep(20);
    }
  };
  const recipient = (i: number): Address => getAddress(`0x${(0xbe4c0000 + i).toString(16).padStart(40, "0")}`);
  // USDT for the hot wallet and for the script key's signed baselines (the mock's open mint).
  for (const to of [HOT_WALLET.address, SCRIPT_KEY.address])
    await publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        account: sender,
        address: usdt,
        abi: parseAbi(["function mint(address to, uint256 amount)"]),
        functionName: "mint",
        args: [to, parseUnits("10000000", 6)],
      }),
    });

  /** The node-signed baseline: WITHDRAWALS transfers from an account the node holds; seconds from the first send. */
  const directRun = async () => {
    const from = await publicClient.getBlockNumber({ cacheTime: 0 });
    nonce = await publicClient.getTransactionCount({ address: sender, blockTag: "pending" });
    const started = performance.now();
    const hashes = await Promise.all(
      Array.from({ length: WITHDRAWALS }, (_, i) =>
        wallet.writeContract({
          account: sender,
          address: usdt,
          abi: erc20Abi,
          functionName: "transfer",
          args: [recipient(i), parseUnits("9", 6)],
          nonce: nonce++,
          gas: 80_000n,
        }),
      ),
    );
    const { seconds } = await untilMined(sender, from + 1n, WITHDRAWALS, () => started);
    for (const hash of hashes) await publicClient.waitForTransactionReceipt({ hash });
    return seconds;
  };

  // The same transfers signed here with a key (no node holds a real hot wallet's key): fees
  // read once, gas fixed, nonces counted here, so each is a local signature and one
  // eth_sendRawTransaction, the least a script holding the key can do.
  const signedRun = async () => {
    const fees = await publicClient.estimateFeesPerGas();
    const from = await publicClient.getBlockNumber({ cacheTime: 0 });
    let signedNonce = await publicClient.getTransactionCount({ address: SCRIPT_KEY.address, blockTag: "pending" });
    const started = performance.now();
    const hashes = await Promise.all(
      Array.from({ length: WITHDRAWALS }, async (_, i) =>
        publicClient.sendRawTransaction({
          serializedTransaction: await SCRIPT_KEY.signTransaction({
            chainId: hardhat.id,
            type: "eip1559",
            to: usdt,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: "transfer",
              args: [recipient(i), parseUnits("9", 6)],
            }),
            nonce: signedNonce++,
            gas: 80_000n,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          }),
        }),
      ),
    );
    const { seconds } = await untilMined(SCRIPT_KEY.address, from + 1n, WITHDRAWALS, () => started);
    for (const hash of hashes) await publicClient.waitForTransactionReceipt({ hash });
    return seconds;
  };

  log(`withdrawals: ${WITHDRAWALS} through the exchange API and the relayer`);
  const api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!, { timeoutMs: 60_000 });
  const perUser = Math.ceil(WITHDRAWALS / WITHDRAWING_USERS);
  // Signed POSTs, IN_FLIGHT at once, from WITHDRAWING_USERS users credited by admin deposits; the
  // number refused.
  const requestWithdrawals = async (via: SigningClient, firstRecipient: number) => {
    const withdrawers = await Promise.all(
      Array.from({ length: WITHDRAWING_USERS }, () => via.user(0, { USDT: String(perUser * Number(WITHDRAWAL_USDT)) })),
    );
    let next = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < WITHDRAWALS; i = next++) {
          const res = await via.signed(withdrawers[i % WITHDRAWING_USERS]!, "POST", "/api/withdrawals", {
            currencyCode: "USDT",
            amount: WITHDRAWAL_USDT,
            address: recipient(firstRecipient + i),
          });
          if (res.status !== 201) {
            refused++;
            log(`withdrawal ${i} refused: ${res.status} ${res.text}`);
          }
        }
      }),
    );
    return refused;
  };
  const viaFrom = await publicClient.getBlockNumber({ cacheTime: 0 });
  const viaStarted = performance.now();
  const refused = await requestWithdrawals(api, WITHDRAWALS);
  const postedSeconds = (performance.now() - viaStarted) / 1000;
  const { seconds: viaSeconds } = await untilMined(
    HOT_WALLET.address,
    viaFrom + 1n,
    WITHDRAWALS - refused,
    () => viaStarted,
  );
  // Where a withdrawal's time goes (ISO times to the millisecond).
  const done = await api.admin("GET", `/admin/withdrawals?status=completed&limit=${WITHDRAWALS + 10}`);
  const spans = (from: string, to: string) =>
    (done.body as Record<string, string>[]).map((w) => Date.parse(w[to]!) - Date.parse(w[from]!)).sort((a, b) => a - b);
  const toSent = spans("createdAt", "sentAt");
  const toCompleted = spans("sentAt", "completedAt");

  // The sender alone, warm: sending paused (the operator's switch), WITHDRAWALS withdrawals are
  // requested and wait pending; the time runs from the resume until the hot wallet's transfers
  // number them all. (A restart with a backlog also timed the embedded databases' start: PGlite's
  // WebAssembly compiles its hot code on the same two cores in the first seconds.)
  const backlogRun = async (round: number) => {
    assert.equal((await api.admin("POST", "/admin/withdrawal-sending", { paused: true })).status, 200);
    const backlogRefused = await requestWithdrawals(api, (2 + round) * WITHDRAWALS);
    const from = await publicClient.getBlockNumber({ cacheTime: 0 });
    const resumed = performance.now();
    const mined = untilMined(HOT_WALLET.address, from + 1n, WITHDRAWALS - backlogRefused, () => resumed);
    assert.equal((await api.admin("POST", "/admin/withdrawal-sending", { paused: false })).status, 200);
    const { seconds, steady } = await mined;
    return { refused: backlogRefused, seconds, steady };
  };

  // Rounds: each a node-signed baseline, a script-signed one and the sender's backlog, one after
  // the other, so a slow spell of the machine or the node hits all three; the target is judged on
  // the median round (a round of 200 transfers lasts ~0.3 s, and single rounds' baselines varied
  // 511-1,024/s).
  const rounds: { direct: number; signed: number; backlog: Awaited<ReturnType<typeof backlogRun>> }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    log(`withdrawals, round ${r + 1} of ${ROUNDS}: two baselines, then ${WITHDRAWALS} pending sent by the relayer`);
    const direct = WITHDRAWALS / (await directRun());
    const signed = WITHDRAWALS / (await signedRun());
    rounds.push({ direct, signed, backlog: await backlogRun(r) });
  }
  await server.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const fixed = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(", ");
  const directRates = rounds.map((r) => r.direct);
  const signedRates = rounds.map((r) => r.signed);
  const backlogRates = rounds.map((r) => (WITHDRAWALS - r.backlog.refused) / r.backlog.seconds);
  const steadyRates = rounds.map((r) => r.backlog.steady);
  const steadySignedRatios = rounds.map((r) => r.backlog.steady / r.signed);
  const steadyDirectRatios = rounds.map((r) => r.backlog.steady / r.direct);
  const backlogRefused = rounds.reduce((sum, r) => sum + r.backlog.refused, 0);
  const directRate = median(directRates);
  const viaRate = (WITHDRAWALS - refused) / viaSeconds;
  const ratio = viaRate / directRate;
  const steadySignedRatio = median(steadySignedRatios);

  console.log("");
  console.log(`| Measure (${backend.kind}) | Result | Target |`);
  console.log("|---|---|---|");
  console.log(`| deposits credited | ${sent.length - missing} of ${sent.length} | all |`);
  console.log(`| credits per second (at ${PER_BLOCK} deposits a ${BLOCK_MS} ms block) | ${rate.toFixed(1)} | report |`);
  console.log(
    `| burst: ${BURST} deposits in one block, credited per second | ${burstCredited} in ${burstSeconds.toFixed(2)} s: ${(burstCredited / burstSeconds).toFixed(0)}/s | report |`,
  );
  console.log(
    `| credit lag after the confirming block, p50 / p99 | ${p50.toFixed(0)} / ${p99.toFixed(0)} ms | p99 <= ${BLOCK_MS} ms (one block): ${p99 <= BLOCK_MS && missing === 0 ? "MET" : "MISSED"} |`,
  );
  console.log(
    `| direct USDT transfers from a script (automine), mined per second, from the first send: median of ${ROUNDS} rounds (each) | ${median(directRates).toFixed(0)}/s (${fixed(directRates, 0)}) | baseline |`,
  );
  console.log(
    `| the same transfers signed by the script with a key | ${median(signedRates).toFixed(0)}/s (${fixed(signedRates, 0)}) | like-for-like baseline |`,
  );
  console.log(
    `| ${WITHDRAWALS} withdrawals sent by the relayer from a backlog (automine), mined per second from the resume | ${median(backlogRates).toFixed(0)}/s (${fixed(backlogRates, 0)}) | report |`,
  );
  console.log(
    `| the same, sending: from the first mined to the last | ${median(steadyRates).toFixed(0)}/s (${fixed(steadyRates, 0)}): ${steadySignedRatio.toFixed(2)}x signed by the script (${fixed(steadySignedRatios, 2)}), ${median(steadyDirectRatios).toFixed(2)}x signed by the node | median >= 0.8x the script: ${steadySignedRatio >= 0.8 && backlogRefused === 0 ? "MET" : "MISSED"} |`,
  );
  console.log(
    `| withdrawals end to end: signed POSTs (${IN_FLIGHT} in flight) to mined (automine), per second | ${WITHDRAWALS - refused} of ${WITHDRAWALS} in ${viaSeconds.toFixed(2)} s (all POSTs answered in ${postedSeconds.toFixed(2)} s: ${((WITHDRAWALS - refused) / postedSeconds).toFixed(0)}/s): ${viaRate.toFixed(0)}/s, ${ratio.toFixed(2)}x direct | report |`,
  );
  console.log(
    `| a withdrawal's time: created -> sent, sent -> completed (${toSent.length} completed by then), p50 / p99 | ${percentile(toSent, 50).toFixed(0)} / ${percentile(toSent, 99).toFixed(0)} ms, ${percentile(toCompleted, 50).toFixed(0)} / ${percentile(toCompleted, 99).toFixed(0)} ms | report |`,
  );
} finally {
  await stopAll();
  await backend.cleanup();
  if (process.env.BENCH_KEEP_TMP !== "true") await rm(tmp, { recursive: true, force: true });
}
