/**
 * The exchange under test, in its own process: startExchange (as `npm run exchange` does, with
 * the demo reference data) plus answers over IPC about its memory after a full GC (started with
 * --expose-gc), which RSS alone hides: a heap grown by the order flow takes new connections into
 * pages it already holds. With NATS_URL it publishes to NATS (startExchange reads it).
 */
import { exchangeEnv, parseEnv } from "../../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../../support/exchange/fixture-market.ts";
import { startExchange } from "../../../exchange/server/start.ts";

export interface ChildMemory {
  readonly rss: number;
  /** V8 heap in use plus memory outside it (socket buffers, Buffers): what connections cost. */
  readonly heapAndExternal: number;
  readonly connections: number;
  readonly slowConsumers: number;
}

const running = await startExchange(parseEnv(exchangeEnv), { beforeLoad: seedFixtureBeforeLoad });

process.on("message", (request: { id: number }) => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.(); // the second pass frees what the first finalised
  const m = process.memoryUsage();
  const reply: ChildMemory = {
    rss: m.rss,
    heapAndExternal: m.heapUsed + m.external,
    connections: running.streamServer.connectionCount(),
    slowConsumers: running.streamServer.slowConsumers(),
  };
  process.send!({ id: request.id, ...reply });
});

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    void running.close().finally(() => process.exit(0));
  });
