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
import { ApiError } from "../../lib/http/index.ts";
import { unavailable, withRetryAfter } from "./errors.ts";

/**
 * The failures of a write's calls out, as the API answers them: the chain's node, the relayer's
 * journal, the relayer and the exchange (whose client answers ApiErrors already) each become a
 * 503 UNAVAILABLE with Retry-After. Anything else (a revert, a bug) is not an outage: undefined,
 * and the caller answers as it would have.
 */
export function outboundFailure(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error.status === 503 ? (withRetryAfter(error) as ApiError) : undefined;
  if (error instanceof UnavailableError)
    // The journal's own words name its database and its deadlines: not the client's business.
    return unavailable(
      error.dependency === JOURNAL ? "the relayer's journal is unavailable; nothing was done" : error.message,
    );
  return chainFailure(error);
}

/**
 * A call the chain's node did not answer (timeout, connection refused or cut, an HTTP error) or
 * answered with a JSON-RPC error that is not a revert: 503. A revert is the contract's answer:
 * undefined (revert.ts decodes the known ones).
 */
export function chainFailure(error: unknown): ApiError | undefined {
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

export const chainUnavailable = (why: string) => unavailable(`The chain's node cannot serve the write now: ${why}`);

/** viem's short message (never the node's URL or the request), first line only. */
function shortMessage(error: Error): string {
  return ((error as { shortMessage?: string }).shortMessage ?? error.message).split("\n")[0]!;
}
