import { setTimeout as sleep } from "node:timers/promises";
import { type Address, encodeFunctionData, parseAbi, type PublicClient } from "viem";
import type { Call } from "../../../relayer/index.ts";
import type { Exchange } from "../../application/index.ts";
import { depositTokens } from "./assets.ts";
import { balancesOf, holdsAny } from "./balances.ts";
import type { ChainGatewayConfig } from "./config.ts";
import { type DepositAddresses, depositSaltOf } from "./deposit-addresses.ts";

// Sweeps deposit addresses into the hot wallet, so withdrawals are paid from what users deposited.
// An address is swept once a credit to it committed (the watcher says which), at most every
// `intervalMs` and `maxPerRound` at a time; the first sweep deploys its forwarder (129,880 gas,
// 87,067 after). A restart forgets that list, so at start-up every known address is looked at
// once and those holding anything are swept. A sweep moves coins the ledger already credited: the
// watcher does not see it as a deposit (it is sent from a deposit address, not to one). A failed
// sweep (the node away, the relayer short of gas money) leaves the address on the list.

const factoryAbi = parseAbi(["function sweep(bytes32 salt, address[] tokens) returns (address)"]);
/** Deploying a forwarder and flushing the native coin; each token adds its transfer. */
const SWEEP_BASE_GAS = 200_000n;
const SWEEP_GAS_PER_TOKEN = 60_000n;
/** Deposit addresses the start-up scan reads a second (each a balance read per asset). */
const SCAN_ADDRESSES_PER_SECOND = 50;

export interface SweeperOptions {
  readonly exchange: Exchange;
  readonly config: ChainGatewayConfig;
  readonly addresses: DepositAddresses;
  readonly client: PublicClient;
  /** The hot wallet's relayer (the withdrawal sender's): sends and waits for the sweep. */
  readonly send: (call: Call) => Promise<{ status: "success" | "reverted" }>;
  readonly intervalMs: number;
  readonly maxPerRound?: number;
  readonly log: (message: string) => void;
}

export interface Sweeper {
  /** An address to sweep at the next round. */
  mark(address: string): void;
  /** Addresses waiting for a sweep. */
  readonly waiting: number;
  close(): Promise<void>;
}

export function startSweeper(options: SweeperOptions): Sweeper {
  const { exchange, config, addresses, client, log } = options;
  const maxPerRound = options.maxPerRound ?? 20;
  const dirty = new Set<string>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // Short (a scan's pace): close() waits for at most one.
  const pause = (ms: number) => (ms > 0 && !closed ? sleep(ms) : Promise.resolve());

  const tokens = () => [...depositTokens(exchange.reference, config.deployment).keys()];
  const sweepOne = async (address: string) => {
    const userId = addresses.userOf(address);
    if (userId === undefined) return;
    const list = tokens();
    const call: Call = {
      to: config.deployment.contracts.DepositForwarderFactory as Address,
      data: encodeFunctionData({ abi: factoryAbi, functionName: "sweep", args: [depositSaltOf(userId), list] }),
      value: 0n,
      gas: SWEEP_BASE_GAS + SWEEP_GAS_PER_TOKEN * BigInt(list.length),
    };
    const receipt = await options.send(call);
    if (receipt.status !== "success") throw new Error(`the sweep of ${address} reverted`);
  };

  const round = async () => {
    for (const address of [...dirty].slice(0, maxPerRound)) {
      if (closed) return;
      dirty.delete(address);
      try {
        await sweepOne(address);
      } catch (error) {
        dirty.add(address);
        log(`exchange: sweep of deposit address ${address} not done yet: ${describe(error)}`);
        return;
      }
    }
  };

  /**
   * After a restart: every address holding any asset goes on the list. Paced at
   * SCAN_ADDRESSES_PER_SECOND: unpaced, a read per asset of every user's address follow each other
   * as fast as the node answers at every start, against a provider's rate limit and beside the
   * withdrawals the sender is sending then. New credits are swept meanwhile: the scan only finds
   * old ones.
   */
  const scan = async () => {
    const owners = [...addresses.entries()].map(([address]) => address);
    const assets = tokens();
    for (const owner of owners) {
      if (closed) return;
      const started = Date.now();
      try {
        if (holdsAny(await balancesOf(client, owner, assets))) dirty.add(owner);
      } catch (error) {
        log(`exchange: sweeper's start-up scan stopped (the node): ${describe(error)}`);
        return;
      }
      await pause(1_000 / SCAN_ADDRESSES_PER_SECOND - (Date.now() - started));
    }
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, options.intervalMs);
  };
  running = scan().finally(schedule);

  return {
    mark: (address) => dirty.add(address.toLowerCase()),
    get waiting() {
      return dirty.size;
    },
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as { shortMessage?: string }).shortMessage ?? error.message;
  return String(error);
}
