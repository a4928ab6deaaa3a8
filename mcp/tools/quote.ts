import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { formatUnits, parseUnits } from "viem";
import { z } from "zod";
import { applySwap, moveBps, quote, spotPrice } from "../../agents/pool/index.ts";
import { poolResponse } from "../../api/launchpad/routes.ts";
import { toolError, toolResult } from "../errors.ts";
import { readJson } from "../http-client.ts";
import { type Guard, type ToolContext, tokenRef } from "./tool.ts";

const TOKEN_DECIMALS = 18;
const PAIR_DECIMALS = { STABLE: 6, WRAPPED_NATIVE: 18 } as const;
const decimal = z.string().regex(/^\d{1,40}(\.\d{1,18})?$/);

const quoteOutput = z.object({
  tokenId: z.string(),
  pool: z.string(),
  side: z.enum(["buy", "sell"]),
  amountIn: z.string().describe("Whole units of what goes in (pair asset for a buy, tokens for a sell)"),
  fee: z.string().describe("Pool fee taken from amountIn, same unit"),
  amountOut: z.string().describe("Whole units of what comes out, rounded down as the pool does"),
  priceImpactBps: z.string().describe("Move of the pool's spot price, in basis points (signed)"),
});

/**
 * A swap quote on a token's pool: the pool's reserves as indexed, and the contracts' own integer
 * math (agents/pool, the same as PoolMath.getAmountOut: fee rounded up, output down).
 */
export function registerQuoteTool(server: McpServer, context: ToolContext, guard: Guard) {
  server.registerTool(
    "quote_swap",
    {
      title: "Swap quote on a pool",
      description:
        "What a buy (pair asset in) or sell (tokens in) of amountIn would get from a token's pool now, with the " +
        "contracts' exact integer math on the indexed reserves. amountIn in whole units (decimal string).",
      inputSchema: z.object({ tokenId: tokenRef, side: z.enum(["buy", "sell"]), amountIn: decimal }),
      outputSchema: quoteOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ((
      { tokenId, side, amountIn }: { tokenId: string; side: "buy" | "sell"; amountIn: string },
      extra: { signal: AbortSignal },
    ) =>
      guard(async (signal) => {
        const answer = await readJson(
          context.ecosystem,
          `/api/launchpad/tokens/${encodeURIComponent(tokenId)}/pool`,
          undefined,
          signal,
        );
        if (!answer.ok) return toolError(answer.error);
        const pool = poolResponse.parse(answer.body);
        const pairDecimals = PAIR_DECIMALS[pool.side];
        const isBuy = side === "buy";
        const inDecimals = isBuy ? pairDecimals : TOKEN_DECIMALS;
        if ((amountIn.split(".")[1]?.length ?? 0) > inDecimals)
          return toolError({ code: "INVALID_PARAM", message: `amountIn: at most ${inDecimals} fractional digits` });
        const amount = parseUnits(amountIn, inDecimals);
        if (amount === 0n) return toolError({ code: "INVALID_PARAM", message: "amountIn: must be more than 0" });
        const reserves = {
          reserveToken: parseUnits(pool.reserves.token, TOKEN_DECIMALS),
          reservePair: parseUnits(pool.reserves.pair, pairDecimals),
          virtualPair: parseUnits(pool.reserves.virtualPair, pairDecimals),
          feePips: BigInt(pool.feeTier),
        };
        const { amountOut, fee } = quote(reserves, isBuy, amount);
        const after = applySwap(reserves, isBuy, amount, amountOut);
        return toolResult({
          tokenId,
          pool: pool.address,
          side,
          amountIn: formatUnits(amount, inDecimals),
          fee: formatUnits(fee, inDecimals),
          amountOut: formatUnits(amountOut, isBuy ? TOKEN_DECIMALS : pairDecimals),
          priceImpactBps: moveBps(spotPrice(reserves), spotPrice(after)).toString(),
        });
      }, extra)) as never,
  );
}
