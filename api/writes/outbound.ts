import { JOURNAL } from "../../lib/db/index.ts";
import { UnavailableError } from "../../lib/unavailable.ts";
import {
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  RpcError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from "viem";

/**
 * The failures of a write's calls out that mean "a dependency cannot serve now": the chain's
 * node, the relayer's journal, the relayer and the exchange (whose client, exchange-client.ts,
 * throws UnavailableError already), each as one UnavailableError (the HTTP side answers it 503
 * with Retry-After). Anything else (a revert, a bug) is not an outage: undefined, and the caller
 * goes on as it would have.
 */
export function outboundFailure(error: unknown): UnavailableError | undefined {
  if (error instanceof UnavailableError)
    // The journal's own words name its database and its deadlines: not the client's business.
    return error.dependency === JOURNAL
      ? new UnavailableError(JOURNAL, "the relayer's journal is unavailable; nothing was done", { cause: error })
      : error;
  return chainFailure(error);
}

/** What cannot serve when the chain's node does not. */
export const CHAIN_NODE = "chain node";

/**
 * A call the chain's node did not answer (timeout, connection refused or cut, an HTTP error) or
 * answered with a JSON-RPC error that is not a revert: unavailable. A revert is the contract's
 * answer: undefined (revert.ts decodes the known ones).
 */
export function chainFailure(error: unknown): UnavailableError | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const transport = error.walk(
    (e) =>
      e instanceof HttpRequestError ||
      e instanceof TimeoutError ||
      e instanceof SocketClosedError ||
      e instanceof WebSocketRequestError,
  );
  if (transport) return chainUnavailable(`it did not answer (${shortMessage(transport)})`);
  if (error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError))
    return undefined;
  const rpc = error.walk((e) => e instanceof RpcError);
  if (rpc) return chainUnavailable(`it refused the call (${shortMessage(rpc)})`);
  return undefined;
}

export const chainUnavailable = (why: string) =>
  new UnavailableError(CHAIN_NODE, `The chain's node cannot serve the write now: ${why}`);

/** viem's short message (never the node's URL or the request), first line only. */
function shortMessage(error: Error): string {
  return ((error as { shortMessage?: string }).shortMessage ?? error.message).split("\n")[0]!;
}
