import { type Address, createPublicClient, encodeFunctionData, type Hex, http, parseEventLogs, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { spawnBody } from "../../../api/writes/index.ts";
import { AgentSpawnerAbi, WorkerVotingAbi } from "../../../indexer/abis.ts";
import { signedWrite } from "../../../support/ecosystem/writes.ts";
import type { Job } from "./fixtures.ts";
import type { Services } from "./services.ts";

/**
 * The two ways of sending the same write. API: a signed POST to the ecosystem API, answered once
 * the relayer has its receipt. Direct (the baseline): a viem wallet client with the relayer's own
 * key calling spawnFor / castVoteFor with the arguments the API would use, waiting for the receipt
 * (polled at RELAYER_POLL_MS, like the relayer), with none of the API's checks, journal or fees. Each returns the key the read API shows the
 * write under: the token address of a spawn, the voter of a vote.
 */

export type Writer = (job: Job) => Promise<string>;

const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";

/** The spawn body both paths send (the API fills in the same defaults: supply, pool side, metadata). */
export const spawnRequest = (job: Job) => ({ name: `Bench ${job.symbol}`, symbol: job.symbol });
export const voteRequest = (proposalId: bigint) => ({ proposalId: String(proposalId), vote: "yes" as const });

/** The relayer's key: on a local node, the Hardhat default account the deployment named relayer. */
function relayerKey(relayer: Address): Hex {
  for (let addressIndex = 0; addressIndex < 20; addressIndex++) {
    const account = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex });
    if (account.address.toLowerCase() === relayer.toLowerCase()) return toHex(account.getHdKey().privateKey!);
  }
  throw new Error(`the relayer ${relayer} is not one of Hardhat's default accounts`);
}

/**
 * The direct path sends like the relayer does: gas and fees are estimated concurrently, then the
 * nonce is taken, signed and broadcast one at a time (Hardhat refuses a nonce past the next one
 * expected, so concurrent sends must reach it in order), then the receipt is awaited concurrently.
 * `resync()` forgets the nonce: call it before a round, since the API's relayer shares the account.
 */
export function directWriters(s: Services, pollMs: number, proposalId: bigint) {
  const account = privateKeyToAccount(relayerKey(s.relayer));
  const client = createPublicClient({ chain: hardhat, transport: http(s.chain.url), pollingInterval: pollMs });
  const spawner = s.contracts.AgentSpawner!;
  const voting = s.contracts.WorkerVoting!;
  let fee: bigint | undefined;
  let nextNonce: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const locked = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => {});
    return run;
  };

  const send = async (to: Address, data: Hex, value: bigint) => {
    const [gas, fees] = await Promise.all([
      client.estimateGas({ account: account.address, to, data, value }),
      client.estimateFeesPerGas(),
    ]);
    const hash = await locked(async () => {
      nextNonce ??= await client.getTransactionCount({ address: account.address, blockTag: "pending" });
      const raw = await account.signTransaction({
        type: "eip1559",
        chainId: hardhat.id,
        nonce: nextNonce,
        to,
        data,
        value,
        gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      try {
        const sent = await client.sendRawTransaction({ serializedTransaction: raw });
        nextNonce++;
        return sent;
      } catch (error) {
        nextNonce = undefined;
        throw error;
      }
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`direct transaction ${hash} reverted`);
    return receipt;
  };

  const spawn: Writer = async (job) => {
    fee ??= await client.readContract({ address: spawner, abi: AgentSpawnerAbi, functionName: "spawnFee" });
    const body = spawnBody.parse(spawnRequest(job));
    const data = encodeFunctionData({
      abi: AgentSpawnerAbi,
      functionName: "spawnFor",
      args: [
        job.address,
        body.name,
        body.symbol,
        BigInt(body.totalSupply) * 10n ** 18n,
        body.poolSide === "STABLE" ? 0 : 1,
        body.metadata,
      ],
    });
    const receipt = await send(spawner, data, fee);
    const [event] = parseEventLogs({ abi: AgentSpawnerAbi, eventName: "AgentSpawned", logs: receipt.logs });
    if (!event) throw new Error(`direct spawn ${job.symbol} emitted no AgentSpawned`);
    return event.args.token.toLowerCase();
  };

  const vote: Writer = async (job) => {
    const request = voteRequest(proposalId);
    const data = encodeFunctionData({
      abi: WorkerVotingAbi,
      functionName: "castVoteFor",
      args: [job.address, BigInt(request.proposalId), 0, ""],
    });
    await send(voting, data, 0n);
    return job.address.toLowerCase();
  };

  return {
    spawn,
    vote,
    resync: () => {
      nextNonce = undefined;
    },
  };
}

export function apiWriters(s: Services, proposalId: bigint) {
  const spawn: Writer = async (job) => {
    const answer = await signedWrite(s.api, job.credentials!, "/api/launchpad/spawn", spawnRequest(job));
    if (answer.status !== 201) throw new Error(`API spawn ${job.symbol}: ${answer.status} ${answer.text}`);
    return String(answer.body.token.address).toLowerCase();
  };
  const vote: Writer = async (job) => {
    const answer = await signedWrite(
      s.api,
      job.credentials!,
      `/api/agents/workers/${s.alpha}/vote`,
      voteRequest(proposalId),
    );
    if (answer.status !== 201) throw new Error(`API vote by ${job.address}: ${answer.status} ${answer.text}`);
    return job.address.toLowerCase();
  };
  return { spawn, vote };
}
