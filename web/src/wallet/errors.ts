import { BaseError, ContractFunctionRevertedError, UserRejectedRequestError } from "viem";

/** A wallet or contract error in words: a rejected signature, a revert's named error, or the short message. */
export function walletErrorText(error: unknown): string {
  if (error instanceof BaseError) {
    if (error.walk((e) => e instanceof UserRejectedRequestError)) return "You rejected the request in your wallet.";
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      const name = revert.data?.errorName;
      if (name)
        return `The contract refused: ${name}${revert.data?.args?.length ? ` (${revert.data.args.join(", ")})` : ""}.`;
      if (revert.reason) return `The contract refused: ${revert.reason}.`;
    }
    if (/rejected|denied/i.test(error.shortMessage)) return "You rejected the request in your wallet.";
    return error.shortMessage;
  }
  const code = (error as { code?: unknown })?.code;
  if (code === 4001) return "You rejected the request in your wallet.";
  return error instanceof Error ? error.message : String(error);
}
