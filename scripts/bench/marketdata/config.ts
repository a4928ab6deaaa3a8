import { z } from "zod";
import { parseEnv } from "../../../config/env.ts";

// Knobs of `npm run bench:marketdata`, from the environment, with defaults sized so the whole run
// stays under about four minutes on a 2-core machine with PGlite (the 1M-row insert is most of it).

const int = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);

const benchEnv = z.object({
  /** Seed of every random choice (book, trades, bulk deals); printed so a run can be repeated. */
  BENCH_SEED: int(20260429, 0),
  /** Seconds of load per endpoint (after a 1 s warm-up). */
  BENCH_DURATION_S: int(5, 1),
  /** Concurrent HTTP connections; 4 keep the one server thread busy while the load thread has the other core. */
  BENCH_CONNECTIONS: int(4, 1),
  /** Deals bulk-inserted for the OHLC comparison. */
  BENCH_DEALS: int(1_000_000, 1000),
  /** Deals made by matched orders on ALPHA_USDT before the load test. */
  BENCH_TRADES: int(3000, 10),
  /** Resting orders kept on the ALPHA_USDT book (half a side). */
  BENCH_RESTING: int(300, 10),
  /** Timed runs of each OHLC query (the median is reported), after one warm-up run. */
  BENCH_OHLC_RUNS: int(5, 1),
  /** PostgreSQL instead of PGlite (a fresh schema, dropped afterwards). */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string")
    .optional(),
});

export type BenchConfig = z.infer<typeof benchEnv>;

export function readConfig(): BenchConfig {
  return parseEnv(benchEnv);
}
