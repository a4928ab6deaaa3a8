import { z } from "zod";
import { addressParam, decimalTextParam, invalidParam, type ApiError } from "../../lib/http/index.ts";
import { writeError } from "./errors.ts";

/** SPEC.md, Launchpad and Limits. */
export const SYMBOL_PATTERN = /^[A-Z]{3,5}$/;
export const MAX_NAME_LENGTH = 50;
export const DEFAULT_TOTAL_SUPPLY = "1000000000";
export const FIXED_DECIMALS = 18;
export const POOL_SIDES = ["STABLE", "WRAPPED_NATIVE"] as const;

const SYMBOL_PROBLEM = "must be 3 to 5 uppercase letters ([A-Z]{3,5})";

export const spawnBody = z.strictObject({
  name: z.string().min(1).max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`),
  symbol: z.string().regex(SYMBOL_PATTERN, SYMBOL_PROBLEM),
  // A whole number of tokens, above zero; the spawner checks the on-chain bound.
  totalSupply: decimalTextParam
    .regex(/^[1-9]\d*$/, "must be a positive whole number of tokens")
    .default(DEFAULT_TOTAL_SUPPLY),
  // "Default 18 (fixed)": any other value is refused rather than silently ignored.
  decimals: z.literal(FIXED_DECIMALS).default(FIXED_DECIMALS),
  poolSide: z.enum(POOL_SIDES).default("STABLE"),
});
export type SpawnBody = z.output<typeof spawnBody>;

export const VOTES = ["yes", "no", "abstain"] as const;

export const voteBody = z.strictObject({
  proposalId: z.string().regex(/^\d{1,78}$/, "must be a proposal id (decimal digits)"),
  vote: z.enum(VOTES),
  comment: z.string().optional(),
});
export type VoteBody = z.output<typeof voteBody>;

/**
 * SPEC.md gives a bad symbol its own code; every other body problem is INVALID_PARAM. The first
 * issue wins so the answer is stable.
 */
export function bodyProblem(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path.join(".") || "body";
  if (field === "symbol") return writeError("INVALID_SYMBOL", `symbol: ${SYMBOL_PROBLEM}`);
  return invalidParam(field, issue?.message ?? "invalid");
}

export function parseSpawnBody(input: unknown): { ok: true; body: SpawnBody } | { ok: false; error: ApiError } {
  const result = spawnBody.safeParse(input);
  return result.success ? { ok: true, body: result.data } : { ok: false, error: bodyProblem(result.error) };
}

export function parseVoteBody(input: unknown): { ok: true; body: VoteBody } | { ok: false; error: ApiError } {
  const result = voteBody.safeParse(input);
  return result.success ? { ok: true, body: result.data } : { ok: false, error: bodyProblem(result.error) };
}

const address = addressParam;
const txHash = z.string().regex(/^0x[0-9a-f]{64}$/);

export const spawnResponse = z.object({
  token: z.object({ address, name: z.string(), symbol: z.string(), totalSupply: z.string(), owner: address }),
  pool: z.object({ address, side: z.enum(POOL_SIDES), feeTier: z.number().int() }),
  // Integers, as the read API spells worker ids.
  worker: z.object({ id: z.number().int(), agentNftId: z.number().int() }),
  txHash,
});

export const tally = z.object({
  yesWeight: z.number(),
  noWeight: z.number(),
  abstainWeight: z.number(),
  quorumThreshold: z.number(),
  quorumReached: z.boolean(),
  passingThreshold: z.number(),
  currentlyPassing: z.boolean(),
});

export const voteResponse = z.object({
  voteId: z.string(),
  proposalId: z.string(),
  vote: z.enum(VOTES),
  weight: z.number(),
  txHash,
  votedAt: z.number().int(),
  currentTally: tally,
});
