import { UnavailableError } from "../../lib/unavailable.ts";
import assert from "node:assert/strict";
import {
  CallExecutionError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  HttpRequestError,
  InternalRpcError,
  LimitExceededRpcError,
  TimeoutError,
} from "viem";
import { describe, it } from "vitest";
import { AgentSpawnerAbi } from "../../indexer/abis.ts";
import { ApiError } from "../../lib/http/index.ts";
import { withRetryAfter } from "./errors.ts";
import { chainFailure, outboundFailure } from "./outbound.ts";

/** A contract read failed by `cause`, wrapped as viem wraps it (readContract, estimateContractGas). */
const contractError = (cause: Error) =>
  new ContractFunctionExecutionError(new CallExecutionError(cause as never, {}), {
    abi: AgentSpawnerAbi,
    functionName: "spawnFee",
  });
const timeout = () => new TimeoutError({ body: { method: "eth_call" }, url: "http://node.internal:8545" });

describe("outboundFailure", () => {
  it("answers a node that did not answer (timeout, HTTP failure) with 503 and Retry-After, without the node's URL", () => {
    for (const error of [
      timeout(),
      contractError(timeout()),
      contractError(new HttpRequestError({ url: "http://node.internal:8545", status: 502 })),
    ]) {
      const answer = outboundFailure(error);
      assert.ok(answer instanceof ApiError, String(error));
      assert.deepEqual([answer.status, answer.code, answer.headers["Retry-After"]], [503, "UNAVAILABLE", "5"]);
      assert.match(answer.message, /chain's node/);
      assert.doesNotMatch(answer.message, /node\.internal/);
    }
  });

  it("answers a node's JSON-RPC error that is not a revert with 503, and leaves a revert to revert.ts", () => {
    assert.equal(outboundFailure(contractError(new LimitExceededRpcError(new Error("too many"))))?.status, 503);
    const reverted = new ContractFunctionExecutionError(
      new ContractFunctionRevertedError({ abi: AgentSpawnerAbi, functionName: "spawnFee", message: "reverted" }),
      { abi: AgentSpawnerAbi, functionName: "spawnFee" },
    );
    assert.equal(chainFailure(reverted), undefined);
    assert.equal(outboundFailure(reverted), undefined);
    assert.equal(outboundFailure(new InternalRpcError(new Error("boom")))?.status, 503);
  });

  it("answers the journal and the relayer away with 503, and a bug with nothing (it stays a 500)", () => {
    assert.equal(
      outboundFailure(new UnavailableError("journal database", "relayer database: no answer in 5000 ms"))?.status,
      503,
    );
    const poor = outboundFailure(new UnavailableError("relayer", "the operator must top it up"));
    assert.deepEqual([poor?.status, poor?.message], [503, "the operator must top it up"]);
    assert.equal(outboundFailure(new TypeError("undefined is not a function")), undefined);
    assert.equal(outboundFailure(new ApiError(400, "INVALID_PARAM", "x")), undefined);
  });
});

describe("withRetryAfter", () => {
  it("gives a 503 or 504 without Retry-After one, and keeps one already set", () => {
    const plain = withRetryAfter(new ApiError(504, "WRITE_PENDING", "cut off")) as ApiError;
    assert.deepEqual([plain.status, plain.code, plain.headers["Retry-After"]], [504, "WRITE_PENDING", "5"]);
    const set = withRetryAfter(new ApiError(503, "UNAVAILABLE", "busy", { "Retry-After": "1" })) as ApiError;
    assert.equal(set.headers["Retry-After"], "1");
    const other = new ApiError(409, "ALREADY_VOTED", "x");
    assert.equal(withRetryAfter(other), other);
  });
});
