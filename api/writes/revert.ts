import { BaseError, ContractFunctionRevertedError } from "viem";
import { type Rejection, rejection } from "./outcome.ts";

/**
 * A contract's revert as the write's rejection. A revert that still happens after the pre-checks
 * (a race with another transaction) is rejected with the same code the pre-check would have.
 * Anything not listed is a bug or infrastructure failure: `undefined`, so the caller rejects with
 * SPAWNER_FAILED or INTERNAL, never a client code.
 */
export function revertRejection(error: unknown): Rejection | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError) || !reverted.data) return undefined;
  const { errorName, args = [] } = reverted.data;
  const a = args as readonly unknown[];
  switch (errorName) {
    case "InvalidSymbol":
      return rejection("INVALID_SYMBOL", `symbol: ${String(a[0])} must be 3 to 5 uppercase letters ([A-Z]{3,5})`);
    case "InvalidName":
      return rejection("INVALID_PARAM", "name: refused by the spawner");
    case "InvalidSupply":
      return rejection("INVALID_PARAM", `totalSupply: ${String(a[0])} is refused by the spawner`);
    case "SymbolTaken":
      return rejection("SYMBOL_TAKEN", `symbol ${String(a[0])} already exists on the chain`);
    case "CooldownActive":
      return rejection(
        "COOLDOWN_ACTIVE",
        `spawn cooldown active for ${String(a[0]).toLowerCase()} until ${String(a[1])} (Unix time)`,
      );
    case "InsufficientFee":
      return rejection("INSUFFICIENT_FEE", `spawn fee is ${String(a[1])} wei of the native token`);
    case "ProposalNotFound":
      return rejection("PROPOSAL_NOT_FOUND", `proposal ${String(a[0])} not found`);
    case "ProposalClosed":
      return rejection("PROPOSAL_CLOSED", `proposal ${String(a[0])} is closed`);
    case "VotingNotStarted":
      return rejection(
        "VOTING_NOT_STARTED",
        `voting on proposal ${String(a[0])} starts at ${String(a[1])} (Unix time)`,
      );
    case "AlreadyVoted":
      return rejection("ALREADY_VOTED", `already voted on proposal ${String(a[0])}`);
    case "NoHoldings":
      // The same rule guards votes (weighed at the proposal's snapshot) and proposals (just before now).
      return rejection(
        "NO_HOLDINGS",
        `${String(a[0]).toLowerCase()} has less than 1 whole token of votes where the rule weighs them (a vote: at the proposal's snapshot; a proposal: just before now)`,
      );
    case "CommentTooLong":
      return rejection("INVALID_PARAM", `comment: must be at most ${String(a[1])} bytes`);
    case "NotAgentOwner":
      return rejection(
        "NOT_TOKEN_OWNER",
        `${String(a[1]).toLowerCase()} does not own agent NFT ${String(a[0])}: only the token's owner chooses its worker's operator`,
      );
    case "OperatorInUse":
      return rejection(
        "INVALID_PARAM",
        `operator: ${String(a[0]).toLowerCase()} acts for agent ${String(a[1])} (a queen or scout), so it cannot operate a worker`,
      );
    default:
      return undefined;
  }
}
