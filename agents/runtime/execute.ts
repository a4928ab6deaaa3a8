import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  decodeEventLog,
  encodeFunctionData,
  type Hex,
  type PublicClient,
  stringToHex,
  type TransactionReceipt,
} from "viem";
import { ActionLogAbi, AgentPoolAbi } from "../../indexer/abis.ts";
import { span } from "../../lib/stage-trace.ts";
import type { Journal, NewWrite, Relayer, TxRow, WriteKind } from "../../relayer/index.ts";
import type { IntentLog, IntentRow } from "./intents.ts";

/**
 * The adapter between decisions and the chain: an intent becomes its transactions, sent through
 * the account's relayer (journalled before broadcast, consecutive nonces, replaced when stuck).
 * Every step has a fixed write id derived from the intent's id, so running an intent again after
 * a restart finds what was sent and waits for it rather than sending it twice. Every recorded
 * payload carries its intent's id (`intent`), so anyone can check that none was recorded twice.
 */

/** An intent as stored: a record, or a swap followed by the record that reports it. */
export type IntentSpec =
  | {
      readonly kind: "record";
      readonly targetNftId: string;
      readonly actionType: string;
      readonly reasonCode: string;
      readonly payload: Record<string, unknown>;
      /** An override's stated cool-off in seconds (ActionLog.recordOverride); absent: the default. */
      readonly coolOffSec?: number;
    }
  | {
      readonly kind: "trade";
      readonly targetNftId: string;
      readonly actionType: string;
      readonly reasonCode: string;
      readonly pool: Address;
      readonly tokenIn: Address;
      readonly isBuy: boolean;
      readonly amountIn: string;
      readonly minAmountOut: string;
      readonly workerId: string;
      readonly mevProtection: "off" | "private_relay" | "batch_auction";
      readonly why: Record<string, unknown>;
    };

export interface Operator {
  readonly name: string;
  readonly address: Address;
  readonly client: PublicClient;
  readonly relayer: Relayer;
  readonly journal: Journal;
  readonly intents: IntentLog;
  readonly actionLog: Address;
}

/** The chain refused the intent (a revert at estimation or in the receipt): it is not retried. */
export class IntentRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IntentRejected";
  }
}

/**
 * Sends (once) and waits for one step of an intent; returns its receipt. `fresh`: the intent was
 * recorded by this process in this tick, so nothing of it can be in the journal yet and the
 * lookup of its transactions is skipped (one statement, the write with its transaction, is all a
 * step writes then). The intent's own state, not the write row's, says whether it is finished.
 */
export async function step(
  op: Operator,
  writeId: string,
  kind: WriteKind,
  call: () => { to: Address; data: Hex },
  { privately = false, value = 0n, fresh = false }: { privately?: boolean; value?: bigint; fresh?: boolean } = {},
): Promise<TransactionReceipt> {
  if (privately) op.relayer.sendPrivately(writeId);
  const journalled = fresh ? [] : await op.journal.txsOf(writeId);
  let sent: TxRow | undefined;
  if (journalled.length === 0) {
    const write: NewWrite = {
      id: writeId,
      userId: op.name,
      kind,
      idempotencyKey: null,
      requestHash: "",
      feeHeld: false,
      createdAt: Date.now(),
    };
    const { to, data } = call();
    const gas = await span("estimateGas", () => op.client.estimateGas({ account: op.address, to, data, value })).catch(
      (error: unknown) => {
        throw new IntentRejected(`${writeId}: ${revertName(error)}`);
      },
    );
    // The write is journalled with its transaction, just before the broadcast: one database round
    // trip (nothing needs it journalled earlier: unsent, it is simply redone). A row an earlier
    // run left without a transaction stays as it is (Journal.addTx).
    sent = await span("send", () =>
      op.relayer.send(writeId, { to, data, value, gas: (gas * 12n) / 10n }, { newWrite: write }),
    );
  }
  const receipt = await span("mined", () => op.relayer.mined(writeId, { nudge: journalled.length > 0, sent }));
  // A set-up write belongs to no intent, so its own row says it is finished (finishSetup).
  if (kind === "agent_setup") await finishWrite(op, writeId, receipt);
  if (receipt.status !== "success") throw new IntentRejected(`${writeId}: reverted in ${receipt.transactionHash}`);
  return receipt;
}

/** Marks a write finished with the receipt of its mined transaction. */
function finishWrite(op: Operator, writeId: string, receipt: TransactionReceipt): Promise<void> {
  return op.journal.finish(
    writeId,
    receipt.status === "success" ? 200 : 409,
    JSON.stringify({ txHash: receipt.transactionHash, status: receipt.status }),
  );
}

/**
 * Set-up writes (approvals, local funding) that a crash left unfinished: each is broadcast again
 * and waited for. Their transactions hold nonces: left unsent, every later transaction of the
 * account would wait behind the gap (a node that mines as it receives refuses them outright). And
 * an approval mined meanwhile is then seen on the chain, not given a second time. Throws
 * TxPendingError if one is still not mined; the caller tries again on its next tick.
 */
export async function finishSetup(op: Operator): Promise<number> {
  const open = await op.journal.openWrites("agent_setup");
  for (const write of open) {
    if ((await op.journal.txsOf(write.id)).length === 0) {
      await op.journal.forget(write.id);
      continue;
    }
    await finishWrite(op, write.id, await op.relayer.mined(write.id, { nudge: true }));
  }
  return open.length;
}

const recordCall =
  (op: Operator, targetNftId: string, actionType: string, payload: unknown, reasonCode: string, coolOffSec?: number) =>
  () => ({
    to: op.actionLog,
    // An override that states its cool-off suspends its target for that long (or until resumed).
    data:
      actionType === "override" && coolOffSec !== undefined
        ? encodeFunctionData({
            abi: ActionLogAbi,
            functionName: "recordOverride",
            args: [BigInt(targetNftId), BigInt(coolOffSec), stringToHex(JSON.stringify(payload)), reasonCode],
          })
        : encodeFunctionData({
            abi: ActionLogAbi,
            functionName: "record",
            args: [BigInt(targetNftId), actionType, stringToHex(JSON.stringify(payload)), reasonCode],
          }),
  });

/** The entry id of the ActionRecorded in a record's receipt. */
function entryIdOf(receipt: TransactionReceipt): string {
  for (const log of receipt.logs) {
    try {
      const event = decodeEventLog({ abi: ActionLogAbi, data: log.data, topics: log.topics });
      if (event.eventName === "ActionRecorded") return event.args.entryId.toString();
    } catch {}
  }
  return "?";
}

/**
 * Runs an intent to its end: done with the entry id it recorded, failed when the chain refused
 * it. Infrastructure errors (node or database away) propagate: the intent stays open and the
 * next tick (or the next start) runs it again from where it stopped.
 */
export async function execute(
  op: Operator,
  intent: IntentRow,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<"done" | "failed"> {
  const spec = JSON.parse(intent.spec) as IntentSpec;
  try {
    if (spec.kind === "record") {
      const receipt = await step(
        op,
        `${intent.id}:record`,
        "agent_record",
        recordCall(
          op,
          spec.targetNftId,
          spec.actionType,
          { ...spec.payload, intent: intent.id },
          spec.reasonCode,
          spec.coolOffSec,
        ),
        { fresh },
      );
      await span("settle", () =>
        op.intents.settle(
          intent.id,
          "done",
          JSON.stringify({ entryId: entryIdOf(receipt), txHash: receipt.transactionHash }),
        ),
      );
      return "done";
    }
    const swap = await step(
      op,
      `${intent.id}:swap`,
      "agent_swap",
      () => ({
        to: spec.pool,
        data: encodeFunctionData({
          abi: AgentPoolAbi,
          functionName: "swapExactIn",
          args: [spec.tokenIn, BigInt(spec.amountIn), BigInt(spec.minAmountOut), op.address],
        }),
      }),
      { privately: spec.mevProtection === "private_relay", fresh },
    );
    const amountOut = swapOutput(swap);
    const payload = {
      ...spec.why,
      workerId: spec.workerId,
      mevProtection: spec.mevProtection,
      swapTx: swap.transactionHash,
      amountOut: amountOut.toString(),
      intent: intent.id,
    };
    const receipt = await step(
      op,
      `${intent.id}:record`,
      "agent_record",
      recordCall(op, spec.targetNftId, spec.actionType, payload, spec.reasonCode),
      { fresh },
    );
    await op.intents.settle(
      intent.id,
      "done",
      JSON.stringify({ entryId: entryIdOf(receipt), txHash: receipt.transactionHash, swapTx: swap.transactionHash }),
    );
    return "done";
  } catch (error) {
    if (!(error instanceof IntentRejected)) throw error;
    await op.intents.settle(intent.id, "failed", error.message);
    return "failed";
  }
}

function swapOutput(receipt: TransactionReceipt): bigint {
  for (const log of receipt.logs) {
    try {
      const event = decodeEventLog({ abi: AgentPoolAbi, data: log.data, topics: log.topics });
      if (event.eventName === "Swap") return event.args.amountOut;
    } catch {}
  }
  return 0n;
}

/** The custom error's name (and arguments) of a reverted call, or the first line of the error. */
export function revertName(error: unknown): string {
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName) return revert.data.errorName;
    return error.shortMessage;
  }
  return String((error as Error)?.message ?? error).split("\n")[0]!;
}
