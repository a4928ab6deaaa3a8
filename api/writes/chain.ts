import {
  type Address,
  encodeFunctionData,
  parseEventLogs,
  type PublicClient,
  type TransactionReceipt,
  zeroAddress,
} from "viem";
import { AgentRegistryAbi, AgentSpawnerAbi, WorkerVotingAbi } from "../../indexer/abis.ts";
import type { Call } from "../../relayer/index.ts";
import { withDeadline } from "../../lib/deadline.ts";
import { chainFailure, chainUnavailable } from "./outbound.ts";
import type { Rejection } from "./outcome.ts";
import { revertRejection } from "./revert.ts";
import { MEV_PROTECTIONS, POOL_SIDES } from "../../indexer/enums.ts";
import type { OperatorBody, ProposeBody, SpawnBody, VoteBody } from "./schemas.ts";
import { VOTES } from "./schemas.ts";

/**
 * The two contracts the writes call, read and simulated through one public client whose
 * transport has a timeout. Simulating a call from the relayer before sending it is the last
 * pre-check: any revert it would hit comes back decoded into the write's rejection, at no gas.
 *
 * Every call is bounded as a whole (`deadlineMs`, retries of the transport included) and a node
 * that does not answer, or answers an error that is not a revert, is an UnavailableError
 * (outbound.ts): a chain outage costs a write a bounded wait and a clear answer, never a 500.
 */

export interface WriteContracts {
  readonly spawner: Address;
  readonly voting: Address;
  readonly registry: Address;
}

/** A call of one of the contracts the writes send to, as viem's contract actions take it. */
export interface ContractCall {
  readonly address: Address;
  readonly abi: typeof AgentSpawnerAbi | typeof WorkerVotingAbi | typeof AgentRegistryAbi;
  readonly functionName: string;
  readonly args: readonly unknown[];
  readonly value: bigint;
}

export interface WriteChainOptions {
  /** Most ms one call (a read, an estimate) may take in all, its transport's retries included; none by default. */
  readonly deadlineMs?: number;
}

export class WriteChain {
  readonly client: PublicClient;
  readonly contracts: WriteContracts;
  /** The relayer's address: simulations run as it, since it is the one that sends. */
  readonly relayer: Address;
  private readonly deadlineMs: number | undefined;

  constructor(client: PublicClient, contracts: WriteContracts, relayer: Address, options: WriteChainOptions = {}) {
    this.client = client;
    this.contracts = contracts;
    this.relayer = relayer;
    this.deadlineMs = options.deadlineMs;
  }

  /**
   * `work` within the deadline; a node failure as UnavailableError. The work is not cancelled (a
   * read has no effect): the write stops waiting for it.
   */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    try {
      return this.deadlineMs === undefined
        ? await running
        : await withDeadline(running, this.deadlineMs, () =>
            chainUnavailable(`it did not answer within ${this.deadlineMs} ms`),
          );
    } catch (error) {
      throw chainFailure(error) ?? error;
    }
  }

  /**
   * The worker of an agent token named by address or registry NFT id, from the registry itself
   * (a token spawned a moment ago may not be indexed yet); undefined when there is none.
   */
  workerOfToken(ref: string): Promise<bigint | undefined> {
    return this.call(async () => {
      const registry = { address: this.contracts.registry, abi: AgentRegistryAbi } as const;
      const nftId = ref.startsWith("0x")
        ? await this.client.readContract({ ...registry, functionName: "agentOfToken", args: [ref as Address] })
        : BigInt(ref);
      if (nftId === 0n) return undefined;
      const workerId = await this.client.readContract({ ...registry, functionName: "workerOfAgent", args: [nftId] });
      return workerId === 0n ? undefined : workerId;
    });
  }

  spawnFee(): Promise<bigint> {
    return this.call(() =>
      this.client.readContract({
        address: this.contracts.spawner,
        abi: AgentSpawnerAbi,
        functionName: "spawnFee",
      }),
    );
  }

  spawnCall(owner: Address, body: SpawnBody, fee: bigint): ContractCall {
    return {
      address: this.contracts.spawner,
      abi: AgentSpawnerAbi,
      functionName: "spawnFor",
      args: [
        owner,
        body.name,
        body.symbol,
        BigInt(body.totalSupply) * 10n ** 18n,
        POOL_SIDES.indexOf(body.poolSide),
        body.metadata,
      ],
      value: fee,
    } as ContractCall;
  }

  /** The worker a proposal is about, or undefined when no proposal has this id. */
  async proposalWorker(proposalId: bigint): Promise<bigint | undefined> {
    const proposal = await this.call(() =>
      this.client.readContract({
        address: this.contracts.voting,
        abi: WorkerVotingAbi,
        functionName: "getProposal",
        args: [proposalId],
      }),
    ).catch((error: unknown) => {
      // The view reverts with ProposalNotFound for an unknown id.
      if (revertRejection(error)?.code === "PROPOSAL_NOT_FOUND") return undefined;
      throw error;
    });
    return proposal === undefined || proposal.proposer === zeroAddress ? undefined : proposal.workerId;
  }

  voteCall(voter: Address, body: VoteBody): ContractCall {
    return {
      address: this.contracts.voting,
      abi: WorkerVotingAbi,
      functionName: "castVoteFor",
      args: [voter, BigInt(body.proposalId), VOTES.indexOf(body.vote), body.comment ?? ""],
      value: 0n,
    } as ContractCall;
  }

  proposeCall(proposer: Address, workerId: bigint, body: ProposeBody): ContractCall {
    return {
      address: this.contracts.voting,
      abi: WorkerVotingAbi,
      functionName: "proposeFor",
      args: [
        proposer,
        workerId,
        {
          slippageCapBps: body.config.slippageCapBps,
          mevProtection: MEV_PROTECTIONS.indexOf(body.config.mevProtection),
          signalSubscriptions: body.config.signalSubscriptions,
        },
        body.description,
      ],
      value: 0n,
    } as ContractCall;
  }

  /**
   * The registry checks that `owner` owns the worker's agent NFT: the relayer only vouches that
   * the signed request came from the exchange user whose linked chain address `owner` is.
   */
  operatorCall(owner: Address, workerId: bigint, body: OperatorBody): ContractCall {
    return {
      address: this.contracts.registry,
      abi: AgentRegistryAbi,
      functionName: "setWorkerOperatorFor",
      args: [owner, workerId, body.operator],
      value: 0n,
    } as ContractCall;
  }

  /** The worker's agent NFT and token, for the answer. */
  worker(workerId: bigint, blockNumber: bigint) {
    return this.call(() =>
      this.client.readContract({
        address: this.contracts.registry,
        abi: AgentRegistryAbi,
        functionName: "getWorker",
        args: [workerId],
        blockNumber,
      }),
    );
  }

  /** The tally as of a block (the one that mined a vote). */
  tally(proposalId: bigint, blockNumber: bigint) {
    return this.call(() =>
      this.client.readContract({
        address: this.contracts.voting,
        abi: WorkerVotingAbi,
        functionName: "getTally",
        args: [proposalId],
        blockNumber,
      }),
    );
  }

  /**
   * The transaction for `call` from the relayer, with its gas and a 20% margin. Estimating runs
   * the call, so a known revert comes back as the write's rejection; an unknown revert or a node
   * failure is thrown as it is.
   */
  async prepare(call: ContractCall): Promise<Call | Rejection> {
    try {
      const gas = await this.call(() => this.client.estimateContractGas({ ...call, account: this.relayer } as never));
      return { to: call.address, data: encodeFunctionData(call as never), value: call.value, gas: (gas * 12n) / 10n };
    } catch (error) {
      const rejected = revertRejection(error);
      if (rejected === undefined) throw error;
      return rejected;
    }
  }

  /** Why `call` reverts now, as the write's rejection; undefined when it does not or for no known reason. */
  async whyReverts(call: ContractCall): Promise<Rejection | undefined> {
    try {
      await this.call(() => this.client.simulateContract({ ...call, account: this.relayer } as never));
      return undefined;
    } catch (error) {
      return revertRejection(error);
    }
  }

  spawnedIn(receipt: TransactionReceipt) {
    const [event] = parseEventLogs({
      abi: AgentSpawnerAbi,
      eventName: "AgentSpawned",
      logs: this.logsOf(receipt, "spawner"),
    });
    return event?.args;
  }

  voteIn(receipt: TransactionReceipt) {
    const [event] = parseEventLogs({
      abi: WorkerVotingAbi,
      eventName: "VoteCast",
      logs: this.logsOf(receipt, "voting"),
    });
    return event?.args;
  }

  proposalIn(receipt: TransactionReceipt) {
    const [event] = parseEventLogs({
      abi: WorkerVotingAbi,
      eventName: "ProposalCreated",
      logs: this.logsOf(receipt, "voting"),
    });
    return event?.args;
  }

  operatorChangeIn(receipt: TransactionReceipt) {
    const [event] = parseEventLogs({
      abi: AgentRegistryAbi,
      eventName: "WorkerOperatorChanged",
      logs: this.logsOf(receipt, "registry"),
    });
    return event?.args;
  }

  /**
   * The receipt's logs emitted by one of the contracts, filtered before decoding: a spawn's
   * receipt holds a dozen logs of the token, pool and registry that need no ABI decoding here.
   */
  private logsOf(receipt: TransactionReceipt, contract: keyof WriteContracts) {
    const address = this.contracts[contract].toLowerCase();
    return receipt.logs.filter((log) => log.address.toLowerCase() === address);
  }

  async blockTime(blockNumber: bigint): Promise<number> {
    return Number((await this.call(() => this.client.getBlock({ blockNumber }))).timestamp);
  }
}
