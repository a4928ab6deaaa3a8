import { z } from "zod";
import { POOL_SIDES, WORKER_STATUSES } from "../../indexer/enums.ts";
import { booleanParam, enumParam, pageQuery, poolSideParam, tokenRefParam } from "../shared/params.ts";
import { defineRoute } from "../../lib/http/index.ts";
import {
  addressOut,
  count,
  decimalString,
  integerId,
  jsonObjectOrNull,
  pageSchema,
  txHashOut,
  unixTime,
} from "../shared/schemas.ts";

/** The launchpad read endpoints: requests and answers, as validated, typed and documented. */

export const LAUNCHPAD_BASE = "/api/launchpad";
/** The lookups by token answer 404 for an unknown token. */
const NOT_FOUND = { status: 404, code: "NOT_FOUND", when: "no agent token has this address or NFT id" } as const;
const tag = "launchpad";

const workerStatus = z.enum(WORKER_STATUSES);
const poolSide = z.enum(POOL_SIDES);
const pairAmount = decimalString.describe(
  "Whole units of the pool's pair asset (stable token: 6 decimals, wrapped native: 18)",
);
const tokenAmount = decimalString.describe("Whole agent tokens (18 decimals)");
const tvlDoc =
  "The pair asset the pool really holds (its real pair reserve; the virtual reserve that sets the launch price is not counted)";
/** Beyond SPEC.md: the pair-asset figures valued in one unit, so pools of both pair assets compare. */
const stableValue = (of: string) =>
  decimalString.describe(
    `${of} valued in whole stable tokens (6 decimals): wrapped native at the configured reference price WRAPPED_NATIVE_PRICE (api/README.md). Not in SPEC.md`,
  );

export const TOKEN_SORTS = ["recent", "volume", "tvl", "holders"] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

export const tokenListItem = z.object({
  address: addressOut,
  symbol: z.string(),
  name: z.string(),
  spawnedAt: unixTime,
  tvl: pairAmount.describe(tvlDoc),
  volume24h: pairAmount,
  tvlStable: stableValue("tvl"),
  volume24hStable: stableValue("volume24h"),
  holders: count.describe("Accounts holding the token, other than its pool, the zero address and 0x…dEaD"),
  workerStatus,
  boosted: z.boolean().describe("An active boost"),
});

export const tokensRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens`,
  tag,
  summary: "List agent tokens",
  description:
    "sort: recent (spawnedAt descending, the default), volume, tvl or holders (descending; ties by spawnedAt, then NFT id, descending). " +
    "tvl and volume rank by value in the stable token (tvlStable, volume24hStable: wrapped native at the reference price WRAPPED_NATIVE_PRICE).",
  query: pageQuery.extend({
    sort: enumParam(TOKEN_SORTS).default("recent"),
    boosted: booleanParam.optional().describe("true: only tokens with an active boost; false: only tokens without"),
    poolSide: poolSideParam.optional(),
  }),
  response: pageSchema(tokenListItem),
});

const tokenPathParams = z.object({ id: tokenRefParam.describe("The agent token's address or its registry NFT id") });

export const tokenDetailResponse = z.object({
  token: z.object({
    address: addressOut,
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    totalSupply: tokenAmount,
    owner: addressOut.describe("The creator"),
    spawnedAt: unixTime,
  }),
  pool: z.object({
    address: addressOut,
    side: poolSide,
    feeTier: z.number().int().describe("Pips: 3000 = 0.30%"),
    tvl: pairAmount.describe(tvlDoc),
    volume24h: pairAmount,
    tvlStable: stableValue("tvl"),
    volume24hStable: stableValue("volume24h"),
    lastTradeAt: unixTime.nullable(),
  }),
  worker: z.object({
    id: integerId,
    agentNftId: integerId,
    status: workerStatus,
    lastActionAt: unixTime.nullable().describe("Newest action on the token; null before any"),
    actionCount: count.describe("All actions on the token"),
  }),
  metadata: z.object({ description: z.string(), logoUri: z.string(), website: z.string() }),
  boost: z.object({
    active: z.boolean(),
    tier: z.number().int().nullable().describe("null if never boosted; kept after expiry"),
    expiresAt: unixTime.nullable(),
  }),
});

export const tokenDetailRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}`,
  tag,
  summary: "Details of one agent token",
  params: tokenPathParams,
  response: tokenDetailResponse,
  errors: [NOT_FOUND],
});

export const trade = z.object({
  txHash: txHashOut,
  side: z.enum(["buy", "sell"]).describe("buy: pair asset in, token out"),
  amountIn: decimalString.describe("Whole units of the asset paid in"),
  amountOut: decimalString.describe("Whole units of the asset paid out"),
  trader: addressOut.describe("The account that sent the swap"),
  blockNumber: integerId,
  timestamp: unixTime,
});

export const poolResponse = z.object({
  address: addressOut,
  token: addressOut,
  pairAsset: addressOut,
  side: poolSide,
  feeTier: z.number().int().describe("Pips: 3000 = 0.30%"),
  reserves: z.object({ token: tokenAmount, pair: pairAmount, virtualPair: pairAmount }),
  price: z
    .string()
    .regex(/^\d+\.\d{18}$/)
    .nullable()
    .describe("Pair asset per whole token, (pair + virtualPair) / token, truncated to 18 fractional digits"),
  tvl: pairAmount.describe(tvlDoc),
  volume24h: pairAmount,
  tvlStable: stableValue("tvl"),
  volume24hStable: stableValue("volume24h"),
  swapCount24h: count,
  lastTradeAt: unixTime.nullable(),
  recentTrades: z.array(trade).describe("The 20 newest swaps, newest first"),
});

export const poolRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}/pool`,
  tag,
  summary: "Pool details of one agent token",
  params: tokenPathParams,
  response: poolResponse,
  errors: [NOT_FOUND],
});

export const tokenWorkerResponse = z.object({
  worker: z.object({ id: integerId, agentNftId: integerId, status: workerStatus, deployedAt: unixTime }),
  recentActions: z
    .array(
      z.object({
        txHash: txHashOut,
        actionType: z.string(),
        params: jsonObjectOrNull.describe("The decoded JSON payload; null when the bytes are not a JSON object"),
        blockNumber: integerId,
        blockTimestamp: unixTime,
      }),
    )
    .describe("The 20 newest actions on the token, newest first"),
  stats: z.object({ totalActions: count, lastActiveAt: unixTime }),
});

export const tokenWorkerRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}/worker`,
  tag,
  summary: "Worker info and recent actions of one agent token",
  params: tokenPathParams,
  response: tokenWorkerResponse,
  errors: [NOT_FOUND],
});

export const launchpadRoutes = [tokensRoute, tokenDetailRoute, poolRoute, tokenWorkerRoute];

export type TokenListItem = z.input<typeof tokenListItem>;
export type TokenDetail = z.input<typeof tokenDetailResponse>;
export type PoolDetail = z.input<typeof poolResponse>;
export type Trade = z.input<typeof trade>;
export type TokenWorker = z.input<typeof tokenWorkerResponse>;
