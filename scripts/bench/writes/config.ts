import { z } from "zod";
import { parseEnv } from "../../../config/env.ts";

// Knobs of `npm run bench:writes`, from the environment. The defaults finish in about four to five
// minutes on a 2-core machine (most of it is set-up and waiting for the indexer between rounds).

const int = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);

const benchEnv = z.object({
  /** Spawns per path (API and direct) and level, split over the rounds; each by a distinct owner with a fresh symbol. */
  BENCH_WRITES_SPAWNS: int(80, 1),
  /** Votes per path and level, split over the rounds; each by a distinct voter on one open proposal. */
  BENCH_WRITES_VOTES: int(400, 1),
  /**
   * Writes in flight at once on either path: a comma list measures each level in turn, and a
   * path's throughput is the best it reached (at 8 the API's extra round trips bound it while the
   * direct path already saturates the node; at 32 the direct path's concurrent estimates slow its
   * one-at-a-time broadcasts).
   */
  BENCH_WRITES_CONCURRENCY: z
    .string()
    .default("8,32")
    .transform((value, ctx) => {
      const levels = value.split(",").map((part) => Number(part.trim()));
      if (levels.length === 0 || levels.some((n) => !Number.isInteger(n) || n < 1)) {
        ctx.addIssue({ code: "custom", message: "a comma-separated list of positive integers, e.g. 8,32" });
        return z.NEVER;
      }
      return [...new Set(levels)];
    }),
  /** Rounds per path, alternating direct, api, direct, api, ... */
  BENCH_WRITES_ROUNDS: int(2, 1),
  /** How often the read API is polled to time visibility (one poller per kind, not per write). */
  BENCH_WRITES_VISIBLE_POLL_MS: int(25, 5),
  /** Most seconds a write may take to show in the read API before the run fails. */
  BENCH_WRITES_VISIBLE_TIMEOUT_S: int(60, 1),
  /** The relayer's receipt polling (the API's RELAYER_POLL_MS); the direct path's viem client polls alike. */
  RELAYER_POLL_MS: int(100, 10),
  /** Put a counting JSON-RPC proxy between Ponder and the chain and print Ponder's calls per write (writes/rpc-count.ts). */
  BENCH_WRITES_COUNT_RPC: z
    .enum(["true", "false", "1", "0", ""])
    .default("")
    .transform((v) => v === "true" || v === "1"),
  /**
   * The API prints each write's stages (lib/stage-trace.ts; Ponder inherits the variable) and the
   * benchmark ends with a table of them per kind (writes/trace.ts).
   */
  WRITES_TRACE: z
    .enum(["true", "false", "1", "0", ""])
    .default("")
    .transform((v) => v === "true" || v === "1"),
  /** Keep the temp dir (chain and Ponder logs) after the run. */
  BENCH_KEEP_TMP: z
    .enum(["true", "false", "1", "0", ""])
    .default("")
    .transform((v) => v === "true" || v === "1"),
});

export type WritesBenchConfig = z.infer<typeof benchEnv>;

export function readConfig(): WritesBenchConfig {
  return parseEnv(benchEnv);
}
