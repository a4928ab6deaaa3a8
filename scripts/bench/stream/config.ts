import { availableParallelism } from "node:os";
import { z } from "zod";
import { parseEnv } from "../../../config/env.ts";

// Knobs of `npm run bench:stream`, from the environment. The defaults finish in about three
// minutes on a 2-core machine (main run, baseline, a search of up to four steps, two gateway
// runs); slow drains can stretch that towards five.

const int = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);
const flag = (fallback: "true" | "false") =>
  z
    .enum(["true", "false", "1", "0", ""])
    .default(fallback)
    .transform((v) => v === "true" || v === "1");

const benchEnv = z.object({
  /** WebSocket clients of the main run (the target is stated at 2,000). */
  BENCH_STREAM_CLIENTS: int(2000, 1),
  /** Signed orders per second offered while clients listen (half makers, half crossing IOC takers). */
  BENCH_STREAM_ORDERS_PER_SECOND: int(1000, 1),
  /** Measured seconds of order flow in the baseline, main and gateway runs. */
  BENCH_STREAM_DURATION_S: int(20, 1),
  /** Seconds of order flow before each run's measured window (events in it are not counted). */
  BENCH_STREAM_WARMUP_S: int(2, 0),
  /** Measured seconds of each step of the client-count search (and of the gateway's 1-client floor). */
  BENCH_STREAM_STEP_DURATION_S: int(10, 1),
  /** The search doubles the client count up to this many; 0 skips the search. */
  BENCH_STREAM_MAX_CLIENTS: int(8000, 0),
  /** ...and halves it down to this many when the main run missed the target. */
  BENCH_STREAM_MIN_CLIENTS: int(125, 1),
  /** The target: p99 commit-to-delivery latency, ms. */
  BENCH_STREAM_TARGET_P99_MS: int(100, 1),
  /** Gateway processes the clients are split over in the NATS part; 0 skips it. */
  BENCH_STREAM_GATEWAYS: int(2, 0),
  /** Connections opened at once (each waits for its SUBSCRIBE answer) before the next batch. */
  BENCH_STREAM_CONNECT_BATCH: int(200, 1),
  /**
   * Threads reading the client sockets. One thread per spare core: on 2 cores the server
   * child has one, the clients the other (the order sender is light, on the main thread).
   */
  BENCH_STREAM_CLIENT_THREADS: int(Math.max(1, availableParallelism() - 1), 1),
  /**
   * The clients' WebSocket code: `raw` (stream/raw-socket.ts: frames read in place, a callback per
   * TCP chunk) leaves more CPU to the server than `ws` (the package, an event per message), which
   * is kept to cross-check that the numbers do not depend on the client.
   */
  BENCH_STREAM_CLIENT_IMPL: z.enum(["raw", "ws"]).default("raw"),
  /** Orders awaiting their answer at once; beyond it the sender waits (the achieved rate drops). */
  BENCH_STREAM_IN_FLIGHT: int(128, 1),
  /** Most seconds to wait after the flow for events still on their way. */
  BENCH_STREAM_DRAIN_S: int(15, 1),
  BENCH_STREAM_PAIR: z
    .string()
    .regex(/^[A-Z0-9]{1,16}_[A-Z0-9]{1,16}$/)
    .default("ALPHA_USDT"),
  /** Seed of the makers' prices; printed so a run can be repeated. */
  BENCH_SEED: int(20260501, 0),
  /** PostgreSQL instead of PGlite (a fresh schema, dropped afterwards). */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string")
    .optional(),
  /** NATS for the gateway part. */
  NATS_URL: z
    .string()
    .regex(/^nats:\/\/\S+$/, "must be a nats:// URL")
    .default("nats://127.0.0.1:4222"),
  /** Keep the temp dir (the exchange's and gateways' logs) after the run. */
  BENCH_KEEP_TMP: flag("false"),
});

export type StreamBenchConfig = z.infer<typeof benchEnv>;

export function readConfig(): StreamBenchConfig {
  return parseEnv(benchEnv);
}
