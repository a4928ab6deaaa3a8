import {
  type Abi,
  BaseError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  encodeErrorResult,
} from "viem";
import { describe, expect, it } from "vitest";
import { AgentRegistryAbi, AgentSpawnerAbi, WorkerVotingAbi } from "../../indexer/abis.ts";
import { revertRejection } from "./revert.ts";
import { WRITE_STATUS } from "./http/statuses.ts";

const OWNER = "0x00000000000000000000000000000000000000aa";

/** What viem throws for a simulated or sent call that reverted: decoded from real revert data. */
function reverted(abi: Abi, functionName: string, errorName: string, args: readonly unknown[]) {
  const data = encodeErrorResult({ abi, errorName, args } as Parameters<typeof encodeErrorResult>[0]);
  const cause = new ContractFunctionRevertedError({ abi, data, functionName });
  return new ContractFunctionExecutionError(cause, { abi, functionName, args: [] });
}

const spawn = (name: string, args: readonly unknown[]) => reverted(AgentSpawnerAbi as Abi, "spawnFor", name, args);
const vote = (name: string, args: readonly unknown[]) => reverted(WorkerVotingAbi as Abi, "castVoteFor", name, args);
const operator = (name: string, args: readonly unknown[]) =>
  reverted(AgentRegistryAbi as Abi, "setWorkerOperatorFor", name, args);

describe("revertRejection", () => {
  it.each([
    [spawn("SymbolTaken", ["ABC"]), 400, "SYMBOL_TAKEN"],
    [spawn("InvalidSymbol", ["abc"]), 400, "INVALID_SYMBOL"],
    [spawn("InvalidName", [""]), 400, "INVALID_PARAM"],
    [spawn("InvalidSupply", [0n]), 400, "INVALID_PARAM"],
    [spawn("CooldownActive", [OWNER, 1_700_000_000n]), 400, "COOLDOWN_ACTIVE"],
    [spawn("InsufficientFee", [1n, 10n]), 402, "INSUFFICIENT_FEE"],
    [vote("ProposalNotFound", [7n]), 404, "PROPOSAL_NOT_FOUND"],
    [vote("ProposalClosed", [7n]), 409, "PROPOSAL_CLOSED"],
    [vote("VotingNotStarted", [7n, 1_700_000_000n]), 409, "VOTING_NOT_STARTED"],
    [vote("AlreadyVoted", [7n, OWNER]), 409, "ALREADY_VOTED"],
    [vote("NoHoldings", [OWNER, 5n, 10n ** 18n]), 403, "NO_HOLDINGS"],
    [vote("CommentTooLong", [600n, 500n]), 400, "INVALID_PARAM"],
    [operator("NotAgentOwner", [3n, OWNER]), 403, "NOT_TOKEN_OWNER"],
    [operator("OperatorInUse", [OWNER, 4n]), 400, "INVALID_PARAM"],
  ])("%#: decodes the custom error into its code (answered with its SPEC.md status)", (error, status, code) => {
    const rejected = revertRejection(error);
    expect(rejected).toMatchObject({ ok: false, code });
    expect(WRITE_STATUS[rejected!.code]).toBe(status);
  });

  it("says when voting starts and when the cooldown ends", () => {
    expect(revertRejection(vote("VotingNotStarted", [7n, 1_700_000_000n]))?.message).toContain("1700000000");
    expect(revertRejection(spawn("CooldownActive", [OWNER, 1_700_000_123n]))?.message).toContain("1700000123");
  });

  it("leaves a revert no client caused to the caller (a bug, not a client code)", () => {
    expect(revertRejection(spawn("InvalidFeeTier", [1]))).toBeUndefined();
    expect(revertRejection(vote("InvalidAddress", [OWNER]))).toBeUndefined();
  });

  it("leaves errors that are not reverts to the caller", () => {
    expect(revertRejection(new Error("socket hang up"))).toBeUndefined();
    expect(revertRejection(new BaseError("fetch failed"))).toBeUndefined();
    expect(revertRejection("nope")).toBeUndefined();
  });
});
