import type { z } from "zod";
import { type ApiError, invalidParam } from "../../../lib/http/index.ts";
import { type SpawnBody, SYMBOL_PROBLEM, spawnBody, type VoteBody, voteBody } from "../schemas.ts";
import { apiErrorOf } from "./statuses.ts";

/** A write's body as the HTTP adapter judges it: the first problem, as its error answer. */

/**
 * SPEC.md gives a bad symbol its own code; every other body problem is INVALID_PARAM. The first
 * issue wins so the answer is stable.
 */
export function bodyProblem(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path.join(".") || "body";
  if (field === "symbol") return apiErrorOf({ code: "INVALID_SYMBOL", message: `symbol: ${SYMBOL_PROBLEM}` });
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
