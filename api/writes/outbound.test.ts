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
import { chainFailure, outboundFailure } from "./outbound.ts";
import { httpErrorOf } from "./http/statuses.ts";

/** A contract read failed by `cause`, wrapped as viem wraps it (readContract, estimateContractGas). */
const contractError = (cause: Error) =>
  new ContractFunctionExecutionError(new CallExecutionError(cause as never, {}), {
    abi: AgentSpawnerAbi,
    functionName: "spawnFee",
  });
const timeout = () => new TimeoutError({ body: { method: "eth_call" }, url: "http://node.internal:8545" });

describe("outboundFailure", () => {
  it("takes a node that did not answer (timeout, HTTP failure) for unavailable, answered 503 with Retry-After, without the node's URL", () => {
    for (const error of [
      timeout(),
      contractError(timeout()),
      contractError(new HttpRequestError({ url: "http://node.internal:8545", status: 502 })),
    ]) {
      const failure = outboundFailure(error);
      assert.ok(failure instanceof UnavailableError, String(error));
      const answer = httpErrorOf(failure) as ApiError;
      assert.deepEqual([answer.status, answer.code, answer.headers["Retry-After"]], [503, "UNAVAILABLE", "5"]);
      assert.match(answer.message, /chain's node/);
      assert.doesNotMatch(answer.message, /node\.internal/);
    }
  });

  it("takes a node's JSON-RPC error that is not a revert for unavailable, and leaves a revert to revert.ts", () => {
    assert.ok(
      outboundFailure(contractError(new LimitExceededRpcError(new Error("too many")))) instanceof UnavailableError,
    );
    const reverted = new ContractFunctionExecutionError(
      new ContractFunctionRevertedError({ abi: AgentSpawnerAbi, functionName: "spawnFee", message: "reverted" }),
      { abi: AgentSpawnerAbi, functionName: "spawnFee" },
    );
    assert.equal(chainFailure(reverted), undefined);
    assert.equal(outboundFailure(reverted), undefined);
    assert.ok(outboundFailure(new InternalRpcError(new Error("boom"))) instanceof UnavailableError);
  });

  it("takes the journal and the relayer away for unavailable (the journal's details unsaid), and a bug for nothing (it stays a 500)", () => {
    const journal = outboundFailure(new UnavailableError("journal database", "relayer database: no answer in 5000 ms"));
    assert.equal(journal?.message, "the relayer's journal is unavailable; nothing was done");
    const poor = outboundFailure(new UnavailableError("relayer", "the operator must top it up"));
    assert.equal(poor?.message, "the operator must top it up");
    assert.equal(outboundFailure(new TypeError("undefined is not a function")), undefined);
    assert.equal(outboundFailure(new ApiError(400, "INVALID_PARAM", "x")), undefined);
  });
});

describe("httpErrorOf", () => {
  it("answers UnavailableError 503 with its Retry-After or 5 s, gives a 503 or 504 without Retry-After one, and leaves the rest", () => {
    const away = httpErrorOf(new UnavailableError("exchange", "away", { retryAfterSeconds: 2 })) as ApiError;
    assert.deepEqual(
      [away.status, away.code, away.message, away.headers["Retry-After"]],
      [503, "UNAVAILABLE", "away", "2"],
    );
    const plain = httpErrorOf(new ApiError(504, "WRITE_PENDING", "cut off")) as ApiError;
    assert.deepEqual([plain.status, plain.code, plain.headers["Retry-After"]], [504, "WRITE_PENDING", "5"]);
    const set = httpErrorOf(new ApiError(503, "UNAVAILABLE", "busy", { "Retry-After": "1" })) as ApiError;
    assert.equal(set.headers["Retry-After"], "1");
    const other = new ApiError(409, "ALREADY_VOTED", "x");
    assert.equal(httpErrorOf(other), other);
    const bug = new TypeError("x");
    assert.equal(httpErrorOf(bug), bug);
  });
});
