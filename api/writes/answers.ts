import { decodeFunctionData, formatUnits, parseTransaction, type TransactionReceipt } from "viem";
import { AgentRegistryAbi, AgentSpawnerAbi, WorkerVotingAbi } from "../../indexer/abis.ts";
import { MEV_PROTECTIONS, nameOf, POOL_SIDES } from "../../indexer/enums.ts";
import type { Journal, WriteKind, WriteRow } from "../../relayer/index.ts";
import { type ProposalRow, tallyOf, toProposalJson } from "../agents/index.ts";
import { wholeUnitsNumber } from "../shared/units.ts";
import type { ContractCall, WriteChain } from "./chain.ts";
import { type Done, done, type Rejection, rejection } from "./outcome.ts";
import { VOTES } from "./schemas.ts";

/**
 * The outcome of a mined write, read from its receipt: SPEC.md's bodies for a spawn, a vote and a
 * proposal (and ours for a worker's new operator), or the revert's rejection when the transaction reverted. Kept apart from the saga
 * (service.ts), which only decides when a write is answered.
 */

const lower = (address: string) => address.toLowerCase();

export async function answerOf(chain: WriteChain, kind: WriteKind, receipt: TransactionReceipt): Promise<Done> {
  const txHash = receipt.transactionHash;
  if (kind === "spawn") {
    const e = chain.spawnedIn(receipt);
    if (!e) throw new Error(`spawn ${txHash} emitted no AgentSpawned`);
    return done({
      token: {
        address: lower(e.token),
        name: e.name,
        symbol: e.symbol,
        totalSupply: formatUnits(e.totalSupply, 18),
        owner: lower(e.owner),
      },
      pool: { address: lower(e.pool), side: POOL_SIDES[e.poolSide], feeTier: e.feeTier },
      worker: { id: Number(e.workerId), agentNftId: Number(e.nftId) },
      txHash,
    });
  }
  if (kind === "propose") {
    const e = chain.proposalIn(receipt);
    if (!e) throw new Error(`proposal ${txHash} emitted no ProposalCreated`);
    const row: ProposalRow = {
      id: e.proposalId,
      workerId: e.workerId,
      token: lower(e.token) as `0x${string}`,
      proposer: lower(e.proposer) as `0x${string}`,
      proposedAt: Number(e.proposedAt),
      startTime: Number(e.startTime),
      endTime: Number(e.endTime),
      quorumThreshold: e.quorumThreshold,
      passingThresholdBps: e.passingThresholdBps,
      slippageCapBps: e.config.slippageCapBps,
      mevProtection: nameOf(MEV_PROTECTIONS, e.config.mevProtection),
      signalSubscriptions: [...e.config.signalSubscriptions],
      description: e.description,
      yesWeight: 0n,
      noWeight: 0n,
      abstainWeight: 0n,
      voteCount: 0,
      executedAt: null,
      txHash,
    };
    return done(toProposalJson(row, Number(e.proposedAt), null));
  }
  if (kind === "set_operator") {
    const e = chain.operatorChangeIn(receipt);
    if (!e) throw new Error(`operator change ${txHash} emitted no WorkerOperatorChanged`);
    const [worker, changedAt] = await Promise.all([
      chain.worker(e.workerId, receipt.blockNumber),
      chain.blockTime(receipt.blockNumber),
    ]);
    return done({
      worker: { id: Number(e.workerId), agentNftId: Number(worker.agentNftId), tokenAddress: lower(worker.token) },
      previousOperator: lower(e.previousOperator),
      operator: lower(e.newOperator),
      txHash,
      changedAt,
    });
  }
  const e = chain.voteIn(receipt);
  if (!e) throw new Error(`vote ${txHash} emitted no VoteCast`);
  const [tally, votedAt] = await Promise.all([
    chain.tally(e.proposalId, receipt.blockNumber),
    chain.blockTime(receipt.blockNumber),
  ]);
  return done({
    voteId: e.voteId.toString(),
    proposalId: e.proposalId.toString(),
    vote: VOTES[e.support],
    weight: wholeUnitsNumber(e.weight),
    txHash,
    votedAt,
    currentTally: tallyOf(tally),
  });
}

/** Why a mined transaction reverted: the same call simulated now, decoded into the write's rejection. */
export async function revertAnswer(
  chain: WriteChain,
  journal: Journal,
  write: WriteRow,
  receipt: TransactionReceipt,
): Promise<Rejection> {
  const txHash = receipt.transactionHash;
  const [sent] = (await journal.txsOf(write.id)).filter((tx) => tx.hash === txHash);
  let reason: Rejection | undefined;
  if (sent) {
    const tx = parseTransaction(sent.raw);
    const abi =
      write.kind === "spawn" ? AgentSpawnerAbi : write.kind === "set_operator" ? AgentRegistryAbi : WorkerVotingAbi;
    const decoded = decodeFunctionData({ abi, data: tx.data! });
    const call = {
      address: tx.to!,
      abi,
      functionName: decoded.functionName,
      args: decoded.args ?? [],
      value: tx.value ?? 0n,
    };
    reason = await chain.whyReverts(call as ContractCall).catch(() => undefined);
  }
  const why =
    reason ??
    (write.kind === "spawn"
      ? rejection("SPAWNER_FAILED", `the spawner reverted in transaction ${txHash}; the fee was returned; retry`)
      : rejection("INTERNAL", `the ${write.kind} reverted in transaction ${txHash}; retry`));
  return rejection(why.code, `${why.message} (transaction ${txHash})`);
}
