import { createHash } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BaseError, ContractFunctionRevertedError, getAddress, parseUnits } from "viem";
import { z } from "zod";
import { type ChainActionContext, recordAction, SlippageCapExceeded, swapExactIn } from "../../agents/sdk/actions.ts";
import { poolResponse, tokenDetailResponse } from "../../api/launchpad/routes.ts";
import { type ToolFailure, toolError, toolResult } from "../errors.ts";
import { getJson } from "../http-client.ts";
import { type Guard, idempotencyKeyOf, registerWriteTool, type ToolContext, tokenRef } from "./tool.ts";

/**
 * Actions the agent takes on-chain with its own key (AGENT_PRIVATE_KEY, stdio only): record an
 * action in the ActionLog, buy or sell on a token's pool. Each is the agents SDK's own action
 * (agents/sdk/actions.ts), so it means what it means there. A contract's refusal is its custom
 * error's name as the code (UnauthorizedAgent -> UNAUTHORIZED_AGENT): the gas estimate throws it
 * before anything is sent.
 */

const TOKEN_DECIMALS = 18;
const PAIR_DECIMALS = { STABLE: 6, WRAPPED_NATIVE: 18 } as const;
/** Keys remembered per session for idempotent retries (oldest forgotten first). */
const MAX_REMEMBERED = 1_000;

const idempotencyKey = idempotencyKeyOf(
  "A retry with the same key and arguments in this session gets the first answer, never a second transaction",
);

/** What a contract's revert, or the SDK's own refusal, means to the caller. */
export function chainFailure(error: unknown): ToolFailure | undefined {
  if (error instanceof SlippageCapExceeded) return { code: "SLIPPAGE_CAP_EXCEEDED", message: error.message };
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError) || !reverted.data?.errorName) return undefined;
  const name = reverted.data.errorName;
  const code = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
  const args = (reverted.data.args ?? []).map(String).join(", ");
  return { code, message: `the contract refused: ${name}(${args}); nothing was done` };
}

/** Same key and arguments: the first call's answer; same key, other arguments: refused. */
export function createIdempotency() {
  const seen = new Map<string, { request: string; answer: Promise<CallToolResult> }>();
  return (key: string | undefined, args: unknown, run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    if (key === undefined) return run();
    const request = createHash("sha256").update(JSON.stringify(args)).digest("hex");
    const first = seen.get(key);
    if (first !== undefined)
      return first.request === request
        ? first.answer
        : Promise.resolve(
            toolError({ code: "IDEMPOTENCY_KEY_REUSED", message: "this idempotencyKey was used with other arguments" }),
          );
    const answer = run().then((result) => {
      // A refusal before anything was sent may be retried under the same key.
      if (result.isError) seen.delete(key);
      return result;
    });
    seen.set(key, { request, answer });
    if (seen.size > MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
    return answer;
  };
}

export function registerChainWrites(server: McpServer, context: ToolContext, guard: Guard, chain: ChainActionContext) {
  const once = createIdempotency();
  const write = (run: () => Promise<Record<string, unknown> | ToolFailure>) => async (): Promise<CallToolResult> => {
    try {
      const answer = await run();
      return "code" in answer && "message" in answer && Object.keys(answer).length === 2
        ? toolError(answer as ToolFailure)
        : toolResult(answer as Record<string, unknown>);
    } catch (error) {
      const failure = chainFailure(error);
      if (failure) return toolError(failure);
      throw error;
    }
  };
  const read = async <T>(path: string, schema: z.ZodType<T>, signal: AbortSignal): Promise<T | ToolFailure> => {
    const answer = await getJson(context.ecosystem.fetch, context.ecosystem.base, path, undefined, signal);
    if (!answer.ok) return answer.error;
    return schema.parse(answer.body);
  };
  const failed = (value: unknown): value is ToolFailure =>
    typeof value === "object" && value !== null && "code" in value && "message" in value && !("address" in value);

  registerWriteTool(
    server,
    guard,
    "record_action",
    {
      title: "Record an action",
      description:
        "ActionLog.record as the agent's own key (AGENT_PRIVATE_KEY): counted as the queen, a scout, or the worker of " +
        "the token the key operates (a worker handed to this key by its owner). Answers entryId and txHash, or the " +
        "contract's refusal (UNAUTHORIZED_AGENT, WORKER_SUSPENDED, INVALID_ACTION_TYPE...).",
      input: z.object({
        tokenId: tokenRef,
        actionType: z.string().min(1).max(32),
        payload: z.looseObject({}).describe("Stored as its JSON text"),
        reasonCode: z.string().min(1).max(64),
        idempotencyKey,
      }),
      output: z.object({ entryId: z.string(), txHash: z.string(), tokenNftId: z.string() }),
    },
    (args, signal) =>
      once(
        args.idempotencyKey,
        { tool: "record_action", ...args },
        write(async () => {
          let nftId: bigint;
          if (/^\d+$/.test(args.tokenId)) nftId = BigInt(args.tokenId);
          else {
            const token = await read(`/api/launchpad/tokens/${getAddress(args.tokenId)}`, tokenDetailResponse, signal);
            if (failed(token)) return token;
            const worker = (token as { worker?: { agentNftId: string | number } | null }).worker;
            if (!worker) return { code: "NOT_FOUND", message: `token ${args.tokenId} has no agent NFT indexed` };
            nftId = BigInt(worker.agentNftId);
          }
          const recorded = await recordAction(chain, {
            targetNftId: nftId,
            actionType: args.actionType,
            payload: args.payload,
            reasonCode: args.reasonCode,
          });
          return { entryId: String(recorded.entryId), txHash: recorded.txHash, tokenNftId: String(nftId) };
        }),
      ),
  );

  registerWriteTool(
    server,
    guard,
    "swap",
    {
      title: "Buy or sell on a token's pool",
      description:
        "A swap as the agent's own key: buy (pair asset in) or sell (tokens in) amountIn (whole units, decimal " +
        "string) on the token's pool, quoted with the contracts' integer math and refused unsent beyond " +
        "slippageCapBps (SLIPPAGE_CAP_EXCEEDED); the pool is approved first when needed. Answers amountOut, " +
        "minAmountOut (base units) and txHash.",
      input: z.object({
        tokenId: tokenRef,
        side: z.enum(["buy", "sell"]),
        amountIn: z.string().regex(/^\d{1,40}(\.\d{1,18})?$/),
        slippageCapBps: z.number().int().min(0).max(10_000),
        idempotencyKey,
      }),
      output: z.object({ amountOut: z.string(), minAmountOut: z.string(), txHash: z.string(), pool: z.string() }),
    },
    (args, signal) =>
      once(
        args.idempotencyKey,
        { tool: "swap", ...args },
        write(async () => {
          const pool = await read(
            `/api/launchpad/tokens/${encodeURIComponent(args.tokenId)}/pool`,
            poolResponse,
            signal,
          );
          if (failed(pool)) return pool;
          const isBuy = args.side === "buy";
          const decimals = isBuy ? PAIR_DECIMALS[pool.side] : TOKEN_DECIMALS;
          if ((args.amountIn.split(".")[1]?.length ?? 0) > decimals)
            return { code: "INVALID_PARAM", message: `amountIn: at most ${decimals} fractional digits` };
          const amountIn = parseUnits(args.amountIn, decimals);
          if (amountIn === 0n) return { code: "INVALID_PARAM", message: "amountIn: must be more than 0" };
          const swapped = await swapExactIn(chain, {
            pool: getAddress(pool.address),
            tokenIn: getAddress(isBuy ? pool.pairAsset : pool.token),
            amountIn,
            slippageCapBps: args.slippageCapBps,
          });
          return {
            amountOut: String(swapped.amountOut),
            minAmountOut: String(swapped.minAmountOut),
            txHash: swapped.txHash,
            pool: getAddress(pool.address),
          };
        }),
      ),
  );
}
