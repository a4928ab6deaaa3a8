import { type Address, erc20Abi, keccak256, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { WorkerVotingAbi } from "../../../indexer/abis.ts";
import type { Credentials } from "../../../support/exchange/signing-client.ts";
import type { Services } from "./services.ts";

/**
 * The benchmark's actors, all derived from labels so every run uses the same ones: an owner and
 * a fresh symbol per spawn (the cooldown is per owner, symbols are unique), a voter per vote
 * (each given ALPHA before the proposal, so it holds votes at the snapshot). Only the API path's
 * actors need exchange users (level 20, the chain address linked, 1 ETH for the spawn fee).
 */

export type PathName = "direct" | "api";
export type Kind = "spawn" | "vote";

export interface Job {
  readonly path: PathName;
  readonly kind: Kind;
  /** 0 is the untimed warm-up before each round; timed writes are 1..n. */
  readonly round: number;
  readonly warmup: boolean;
  /** The spawn's owner or the voter. */
  readonly address: Address;
  readonly symbol: string;
  credentials?: Credentials;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** "Z" and three letters from `n` (ZAAA, ZAAB, ...): 4 uppercase letters, none of the demo's. */
export function symbolOf(n: number): string {
  let tail = "";
  for (let i = 0, rest = n; i < 3; i++, rest = Math.floor(rest / 26)) tail = ALPHABET[rest % 26] + tail;
  return `Z${tail}`;
}

export const addressOf = (label: string): Address =>
  privateKeyToAccount(keccak256(toHex(`bench-writes ${label}`))).address.toLowerCase() as Address;

/** Splits `total` writes over `rounds` as evenly as possible. */
export function perRound(total: number, rounds: number): number[] {
  return Array.from({ length: rounds }, (_, r) => Math.floor(total / rounds) + (r < total % rounds ? 1 : 0));
}

/**
 * The jobs of one kind at one concurrency level: per round, direct then api, each with a warm-up
 * job first. Returned in run order as [path, round, warm-up, timed jobs].
 */
export function planJobs(kind: Kind, level: number, total: number, rounds: number, firstSymbol: number) {
  let symbol = firstSymbol;
  const plan: { path: PathName; level: number; round: number; warmup: Job; jobs: Job[] }[] = [];
  const counts = perRound(total, rounds);
  for (let round = 1; round <= rounds; round++) {
    for (const path of ["direct", "api"] as const) {
      const make = (i: number, warmup: boolean): Job => ({
        path,
        kind,
        round,
        warmup,
        address: addressOf(`${kind} ${path} x${level} ${round} ${warmup ? "warm-up" : i}`),
        symbol: symbolOf(symbol++),
      });
      const warmup = make(0, true);
      plan.push({
        path,
        level,
        round,
        warmup,
        jobs: Array.from({ length: counts[round - 1]! }, (_, i) => make(i, false)),
      });
    }
  }
  return { plan, nextSymbol: symbol };
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** An exchange user for each API-path job: level 20, its chain address, 1 ETH for a spawn fee. */
export async function createUsers(s: Services, jobs: readonly Job[]): Promise<void> {
  await eachLimited(
    jobs.filter((j) => j.path === "api"),
    8,
    async (job) => {
      job.credentials = await s.admin.user(20, job.kind === "spawn" ? { ETH: "1" } : {}, job.address);
    },
  );
}

/** Transfers per block while giving ALPHA (a new holder and its votes cost about 150k gas; far under the node's block gas limit). */
const TRANSFERS_PER_BLOCK = 200;

/**
 * Account 4 (the demo's ALPHA buyer) gives `amount` whole ALPHA to each address, TRANSFERS_PER_BLOCK
 * to a block (automine off while they are sent): a long run gives thousands, and the indexer's
 * live sync takes blocks one at a time, so one block each would keep it busy for minutes.
 */
export async function giveAlpha(s: Services, addresses: readonly Address[], amount: string): Promise<void> {
  const [, , , , holder] = await s.viem.getWalletClients();
  const client = await s.viem.getPublicClient();
  const test = await s.viem.getTestClient();
  for (let first = 0; first < addresses.length; first += TRANSFERS_PER_BLOCK) {
    const hashes: `0x${string}`[] = [];
    await test.setAutomine(false);
    try {
      // Sent 16 at a time: the node gives each the account's next nonce as it takes it.
      await eachLimited(addresses.slice(first, first + TRANSFERS_PER_BLOCK), 16, async (to) => {
        hashes.push(
          await holder.writeContract({
            address: s.alpha,
            abi: erc20Abi,
            functionName: "transfer",
            args: [to, parseEther(amount)],
            gas: 300_000n,
          }),
        );
      });
      await test.mine({ blocks: 1 });
    } finally {
      await test.setAutomine(true);
    }
    const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })));
    if (receipts.some((r) => r.status !== "success")) throw new Error("an ALPHA transfer to a voter reverted");
  }
}

/** A proposal on ALPHA's worker by account 4, then time moved past its voting delay: open for votes. */
export async function openProposal(s: Services, description: string): Promise<bigint> {
  const [, , , , holder] = await s.viem.getWalletClients();
  const client = await s.viem.getPublicClient();
  const voting = s.contracts.WorkerVoting!;
  const hash = await holder.writeContract({
    address: voting,
    abi: WorkerVotingAbi,
    functionName: "propose",
    args: [s.alphaWorkerId, { slippageCapBps: 42, mevProtection: 1, signalSubscriptions: ["price"] }, description],
  });
  await client.waitForTransactionReceipt({ hash });
  const id = await client.readContract({ address: voting, abi: WorkerVotingAbi, functionName: "proposalCount" });
  const proposal = await client.readContract({
    address: voting,
    abi: WorkerVotingAbi,
    functionName: "getProposal",
    args: [id],
  });
  const test = await s.viem.getTestClient();
  const block = await client.getBlock();
  if (block.timestamp < proposal.startTime) {
    await test.setNextBlockTimestamp({ timestamp: proposal.startTime });
    await test.mine({ blocks: 1 });
  }
  const state = await client.readContract({ address: voting, abi: WorkerVotingAbi, functionName: "state", args: [id] });
  if (state !== 0) throw new Error(`proposal ${id} is not active (state ${state})`);
  return id;
}
