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
 * Target: credit lag p99 within one block time of the confirmation.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Address, createPublicClient, createWalletClient, erc20Abi, http, parseAbi, parseUnits } from "viem";
import { hardhat } from "viem/chains";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedDemoBeforeLoad } from "../../exchange/demo/reference-data.ts";
import { startExchange } from "../../exchange/server/start.ts";
import { deployAndSeed, startChain, stopAll } from "../../support/ecosystem/harness.ts";
import { createBackend } from "../../support/exchange/backends.ts";
import { percentile } from "./indexer/stats.ts";

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const USERS = int("BENCH_GATEWAY_USERS", 200);
const BLOCK_MS = int("BENCH_GATEWAY_BLOCK_MS", 1000);
const PER_BLOCK = int("BENCH_GATEWAY_PER_BLOCK", 50);
const BLOCKS = int("BENCH_GATEWAY_BLOCKS", 20);
const BURST = int("BENCH_GATEWAY_BURST", 500);
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

  const server = await startExchange(
    parseEnv(exchangeEnv, { ...backend.vars, CHAIN_GATEWAY: "true", RPC_URL: chain.url }),
    { log: () => {}, beforeLoad: seedDemoBeforeLoad, deploymentsRoot: tmp },
  );
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
  await server.close();

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
} finally {
  await stopAll();
  await backend.cleanup();
  if (process.env.BENCH_KEEP_TMP !== "true") await rm(tmp, { recursive: true, force: true });
}
