import { z } from "zod";
import { POOL_SIDES, WORKER_STATUSES } from "../../indexer/enums.ts";
import { CANDLE_INTERVALS } from "../../indexer/candles.ts";
import { booleanParam, enumParam, pageQuery, poolSideParam, timeParam, tokenRefParam } from "../shared/params.ts";
import { defineRoute, MAX_CANDLES } from "../../lib/http/index.ts";
import {
  addressOut,
  count,
  decimalString,
  integerId,
  jsonObjectOrNull,
  pageSchema,
  txHashOut,
  suspendedUntil,
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
    suspendedUntil,
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
  worker: z.object({
    id: integerId,
    agentNftId: integerId,
    status: workerStatus,
    suspendedUntil,
    deployedAt: unixTime,
  }),
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

const priceText = (doc: string) =>
  z
    .string()
    .regex(/^\d+\.\d{18}$/)
    .describe(`${doc}, in pair-asset units per whole token, 18 fractional digits, truncated`);

export const poolTrade = z.object({
  txHash: txHashOut,
  logIndex: count.describe("The Swap event's log index: with txHash, the trade's unique key"),
  blockNumber: integerId,
  timestamp: unixTime,
  trader: addressOut.describe(
    "The account that sent the swap (paid the pair asset in for a buy, the tokens for a sell)",
  ),
  side: z.enum(["buy", "sell"]).describe("buy: pair asset in, tokens out; sell: tokens in, pair asset out"),
  tokenAmount: tokenAmount.describe("Whole agent tokens bought or sold"),
  pairAmount: pairAmount.describe("Whole pair-asset units paid (buy, the fee included) or received (sell)"),
  price: priceText("pairAmount / tokenAmount: what the trade paid per token, the fee included"),
});

export const tradesRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}/trades`,
  tag,
  summary: "The pool's trades (swaps), newest first",
  description:
    "Every swap of the token's pool, newest first (chain order: block, then log index). totalItems is the pool's swap " +
    "count; a page is a range of the swaps' numbers in the pool, so a deep page costs what the first does.",
  params: tokenPathParams,
  query: pageQuery,
  response: pageSchema(poolTrade),
  errors: [NOT_FOUND],
});

export const candle = z.object({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
    .meta({
      description: "Bucket start, ISO 8601 UTC without offset (SPEC.md's candle)",
      example: "2026-04-29T12:00:00",
    }),
  time: unixTime.describe("Bucket start, Unix seconds (the same instant as date). Not in SPEC.md"),
  open: priceText("First trade's price"),
  max: priceText("Highest trade price"),
  min: priceText("Lowest trade price"),
  close: priceText("Last trade's price"),
  volume: pairAmount.describe("Pair asset traded (the quote currency), whole units"),
  volumeBase: tokenAmount.describe("Agent tokens traded (the base currency), whole tokens"),
});

export const candlesRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}/candles`,
  tag,
  summary: "Candles of the pool's trade price, oldest first",
  description:
    "As the exchange's /api/ohlc (SPEC.md): candles whose interval overlaps [start, end], intervals without trades left " +
    `out, at most ${MAX_CANDLES} intervals per call (split longer ranges). Prices are each swap's own price ` +
    "(pairAmount / tokenAmount, fee included). Read from a rollup the indexer keeps per pool and interval.",
  params: tokenPathParams,
  query: z.object({
    interval: enumParam(CANDLE_INTERVALS),
    start: timeParam,
    end: timeParam,
  }),
  response: z.array(candle),
  errors: [
    NOT_FOUND,
    { status: 400, code: "INVALID_PARAM", when: "end is before start, or the range spans too many intervals" },
  ],
});

export const HOLDER_LABELS = ["pool", "creator", "burn"] as const;

export const holder = z.object({
  address: addressOut,
  balance: tokenAmount,
  share: decimalString.describe(
    "balance / totalSupply, a fraction from 0 to 1 (18 fractional digits at most, truncated)",
  ),
  label: z
    .enum(HOLDER_LABELS)
    .nullable()
    .describe("pool: the token's own pool; creator: the token's owner (its spawner); burn: 0x…dEaD; null otherwise"),
});

export const holdersRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${LAUNCHPAD_BASE}/tokens/{id}/holders`,
  tag,
  summary: "Accounts holding the token, largest balance first",
  description:
    "Every account with a balance, the pool and the burn address included (labelled; the token list's holders count " +
    "leaves them out): balance descending, then address ascending.",
  params: tokenPathParams,
  query: pageQuery,
  response: pageSchema(holder),
  errors: [NOT_FOUND],
});

export const launchpadRoutes = [
  tokensRoute,
  tokenDetailRoute,
  poolRoute,
  tokenWorkerRoute,
  tradesRoute,
  candlesRoute,
  holdersRoute,
];

export type TokenListItem = z.input<typeof tokenListItem>;
export type TokenDetail = z.input<typeof tokenDetailResponse>;
export type PoolDetail = z.input<typeof poolResponse>;
export type Trade = z.input<typeof trade>;
export type TokenWorker = z.input<typeof tokenWorkerResponse>;
export type PoolTrade = z.input<typeof poolTrade>;
export type Candle = z.input<typeof candle>;
export type Holder = z.input<typeof holder>;
