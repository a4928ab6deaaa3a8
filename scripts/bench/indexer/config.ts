import { z } from "zod";
import { parseEnv } from "../../../config/env.ts";

const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

/**
 * The benchmark's knobs. Defaults keep a run to a few minutes on 2 cores: the throughput
 * stream is smaller than the latency table, which is then topped up to BENCH_LATENCY_ROWS.
 */
export const benchEnv = z.object({
  /** Throughput stream: action records and agent-token transfers, mined BENCH_TXS_PER_BLOCK a block. */
  BENCH_ACTIONS: count(20_000),
  BENCH_TRANSFERS: count(20_000),
  BENCH_TXS_PER_BLOCK: z.coerce.number().int().min(1).max(2000).default(500),
  BENCH_TOKENS: z.coerce.number().int().min(1).max(13).default(8),
  /** Distinct accounts transfers go to (plus the 13 holders), so the holding table grows. */
  BENCH_RECIPIENTS: z.coerce.number().int().min(1).default(5000),
  /** Also time each app re-indexing from Ponder's RPC cache (handler-bound, not node-bound). */
  BENCH_CACHED: z.stringbool().default(true),
  /**
   * Chain id of the benchmark's node. Not 31337: our config turns Ponder's RPC cache off there (a
   * new chain on every `npm start`), and the cached re-index needs it. Nothing else depends on it.
   */
  BENCH_CHAIN_ID: z.coerce.number().int().positive().default(31338),
  /** Throughput rounds (app, no-op, app, no-op, ...); the fastest run of each counts. */
  BENCH_ROUNDS: z.coerce.number().int().min(1).max(5).default(1),
  /** Action-log rows the API is measured at (more actions are mined after the throughput runs). */
  BENCH_LATENCY_ROWS: count(100_000),
  BENCH_PAGE_SIZE: z.coerce.number().int().min(1).max(100).default(25),
  /** Deep page of the unfiltered list; default the last full page. */
  BENCH_DEEP_PAGE: z.coerce.number().int().min(1).optional(),
  BENCH_SAMPLES: z.coerce.number().int().min(10).default(300),
  BENCH_WARMUP: count(30),
  BENCH_CHAIN_PORT: port(8701),
  BENCH_APP_PORT: port(42701),
  BENCH_NOOP_PORT: port(42702),
  /** Longest wait for one app to catch up, in seconds. */
  BENCH_TIMEOUT_S: z.coerce.number().int().min(10).default(900),
  /** Keep the temp dir (logs, PGlite data) for inspection. */
  BENCH_KEEP_TMP: z.stringbool().default(false),
  /** Postgres instead of PGlite: each app gets a fresh database created beside this one. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string")
    .optional(),
});
export type BenchConfig = z.infer<typeof benchEnv>;

export const readConfig = () => parseEnv(benchEnv);
