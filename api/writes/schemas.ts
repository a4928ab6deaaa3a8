import { z } from "zod";
import { addressParam, decimalTextParam } from "../../lib/http/index.ts";
import { MEV_PROTECTIONS, POOL_SIDES } from "../../indexer/enums.ts";
import { tallySchema } from "../agents/index.ts";

/** SPEC.md, Launchpad and Limits. */
export const SYMBOL_PATTERN = /^[A-Z]{3,5}$/;
export const MAX_NAME_LENGTH = 50;
export const DEFAULT_TOTAL_SUPPLY = "1000000000";
export const FIXED_DECIMALS = 18;

export const SYMBOL_PROBLEM = "must be 3 to 5 uppercase letters ([A-Z]{3,5})";

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");
/** On-chain limits (AgentNames.MAX_NAME_BYTES, AgentRegistry.MAX_*_BYTES, AgentSpawner.MAX_SUPPLY). */
export const MAX_DESCRIPTION_BYTES = 512;
export const MAX_URI_BYTES = 256;
export const MAX_TOTAL_SUPPLY = 10n ** 12n;

const boundedText = (maxBytes: number) =>
  z.string().refine((text) => utf8Bytes(text) <= maxBytes, `must be at most ${maxBytes} bytes of UTF-8`);

export const spawnMetadata = z.strictObject({
  description: boundedText(MAX_DESCRIPTION_BYTES).default(""),
  logoUri: boundedText(MAX_URI_BYTES).default(""),
  website: boundedText(MAX_URI_BYTES).default(""),
});

export const spawnBody = z.strictObject({
  // The contract counts bytes: a 50-character name of non-ASCII letters would revert on-chain.
  name: z
    .string()
    .min(1)
    .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)
    .refine((name) => utf8Bytes(name) <= MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} bytes of UTF-8`),
  symbol: z.string().regex(SYMBOL_PATTERN, SYMBOL_PROBLEM),
  // A whole number of tokens from 1 to 10^12 (the spawner's bounds).
  totalSupply: decimalTextParam
    .regex(/^[1-9]\d{0,12}$/, "must be a whole number of tokens from 1 to 1000000000000")
    .refine(
      (text) => !/^\d+$/.test(text) || BigInt(text) <= MAX_TOTAL_SUPPLY,
      "must be a whole number of tokens from 1 to 1000000000000",
    )
    .default(DEFAULT_TOTAL_SUPPLY),
  // "Default 18 (fixed)": any other value is refused rather than silently ignored.
  decimals: z.literal(FIXED_DECIMALS).default(FIXED_DECIMALS),
  poolSide: z.enum(POOL_SIDES).default("STABLE"),
  metadata: spawnMetadata.default({ description: "", logoUri: "", website: "" }),
});
export type SpawnBody = z.output<typeof spawnBody>;

export const VOTES = ["yes", "no", "abstain"] as const;
/** WorkerVoting.MAX_COMMENT_BYTES. */
export const MAX_COMMENT_BYTES = 280;

export const voteBody = z.strictObject({
  proposalId: z.string().regex(/^\d{1,78}$/, "must be a proposal id (decimal digits)"),
  vote: z.enum(VOTES),
  comment: boundedText(MAX_COMMENT_BYTES).optional(),
});
export type VoteBody = z.output<typeof voteBody>;

/** Registry limits of a worker config (AgentRegistry.MAX_*), and ours on a proposal's description. */
export const MAX_SIGNAL_SUBSCRIPTIONS = 16;
export const MAX_SIGNAL_BYTES = 32;
export const MAX_PROPOSAL_DESCRIPTION_BYTES = 1_000;

export const proposeBody = z.strictObject({
  config: z.strictObject({
    slippageCapBps: z.number().int().min(0).max(10_000),
    mevProtection: z.enum(MEV_PROTECTIONS),
    signalSubscriptions: z
      .array(boundedText(MAX_SIGNAL_BYTES).refine((text) => text.length > 0, "must not be empty"))
      .max(MAX_SIGNAL_SUBSCRIPTIONS),
  }),
  description: boundedText(MAX_PROPOSAL_DESCRIPTION_BYTES).default(""),
});
export type ProposeBody = z.output<typeof proposeBody>;

/**
 * Who operates a token's worker from now on: an agent of the owner's own, or the reference
 * runtime's operator (AgentSpawner.workerOperator()) to hand it back.
 */
export const operatorBody = z.strictObject({
  // The registry refuses it too, but with an error other contracts share: refused here by name.
  operator: addressParam
    .refine((a) => BigInt(a) !== 0n, "must not be the zero address")
    .meta({
      description:
        "The address that records the worker's actions from now on (any address but a queen's or scout's operator)",
    }),
});
export type OperatorBody = z.output<typeof operatorBody>;

const address = addressParam;
const txHash = z.string().regex(/^0x[0-9a-f]{64}$/);

export const spawnResponse = z.object({
  token: z.object({ address, name: z.string(), symbol: z.string(), totalSupply: z.string(), owner: address }),
  pool: z.object({ address, side: z.enum(POOL_SIDES), feeTier: z.number().int() }),
  // Integers, as the read API spells worker ids.
  worker: z.object({ id: z.number().int(), agentNftId: z.number().int() }),
  txHash,
});

export const voteResponse = z.object({
  voteId: z.string(),
  proposalId: z.string(),
  vote: z.enum(VOTES),
  weight: z.number(),
  txHash,
  votedAt: z.number().int(),
  currentTally: tallySchema,
});

export const operatorResponse = z.object({
  worker: z.object({ id: z.number().int(), agentNftId: z.number().int(), tokenAddress: address }),
  previousOperator: address,
  operator: address,
  txHash,
  changedAt: z.number().int().meta({ description: "Unix timestamp of the block that changed it" }),
});
