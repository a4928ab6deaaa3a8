import assert from "node:assert/strict";
import { afterEach, describe, it } from "vitest";
import { ApiError } from "../../../lib/http/index.ts";
import type { SpawnBody } from "../schemas.ts";
import type { StartedWrites, WritesConfig } from "../start.ts";
import { startWritesThread, type WritesThreadOptions } from "./start.ts";

// The bridge between the API's thread and the writes' thread, against a stand-in for the thread
// (support/writes/stand-in-thread.ts); the real thread is exercised end to end by
// test/ecosystem/writes.test.ts through Ponder.

const entry = new URL("../../../support/writes/stand-in-thread.ts", import.meta.url);
const config = {
  rpcUrl: "http://127.0.0.1:9",
  chainId: 31337,
  rpcTimeoutMs: 1000,
  exchangeUrl: "http://127.0.0.1:9",
  exchangeServiceSecret: "secret",
  exchangeTimeoutMs: 1000,
  dataDir: "unused",
  schema: "relayer",
  dbTimeoutMs: 1000,
  receiptTimeoutMs: 1000,
  replaceAfterMs: 1000,
  pollMs: 100,
  minBalanceWei: 0n,
  feeCurrency: "ETH",
  votesPerMinute: 10,
  log: () => {},
} satisfies WritesConfig;

let running: StartedWrites[] = [];
afterEach(async () => {
  await Promise.all(running.map((w) => w.close()));
  running = [];
});

async function start(options: Omit<WritesThreadOptions, "entry"> = {}, extra: Partial<WritesConfig> = {}) {
  const writes = startWritesThread({ ...config, ...extra }, { entry, ...options });
  running.push(writes);
  await writes.ready;
  return writes;
}

const spawn = (symbol: string) => ({
  caller: { userId: "u1", level: 25, address: "0x00000000000000000000000000000000000000a1" as const },
  body: { name: "N", symbol, totalSupply: "1000", poolSide: "STABLE" } as unknown as SpawnBody,
  idempotencyKey: "k1",
  requestHash: "h1",
});

const serving = (writes: StartedWrites) => () => {
  try {
    writes.service();
    return true;
  } catch {
    return false;
  }
};

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check());
};

describe("writes on their own thread", () => {
  it("carries a call across and its answer back, bigints and all", async () => {
    const writes = await start();
    const request = { ...spawn("ECHO"), caller: { ...spawn("ECHO").caller, level: 30 }, extra: 10n ** 30n };
    const answer = await writes.service().spawn(request);
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.body, { method: "spawn", request });
  });

  it("answers many calls at once, each with its own answer", async () => {
    const writes = await start();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writes.service().vote({ ...spawn("ECHO"), body: { vote: "yes" } as never, tokenRef: String(i) }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => (a.body as { request: { tokenRef: string } }).request.tokenRef),
      Array.from({ length: 50 }, (_, i) => String(i)),
    );
  });

  it("rethrows the thread's API errors with their status, code and headers; a bug as a plain error", async () => {
    const writes = await start();
    await assert.rejects(writes.service().spawn(spawn("TAKEN")), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.deepEqual(
        [error.status, error.code, error.message, error.headers],
        [400, "SYMBOL_TAKEN", "TAKEN exists", { "X-Why": "test" }],
      );
      return true;
    });
    await assert.rejects(writes.service().spawn(spawn("BUG")), (error: unknown) => {
      assert.ok(!(error instanceof ApiError));
      assert.match((error as Error).message, /a bug/);
      return true;
    });
  });

  it("says why it does not serve, as a 503, while the thread is not ready", async () => {
    const writes = await start({}, { notReady: "signed writes are starting: no chain" } as never);
    assert.throws(
      () => writes.service(),
      (error: unknown) => error instanceof ApiError && error.status === 503 && /no chain/.test(error.message),
    );
    // The signature check needs only the exchange, which stays on this thread.
    assert.ok(writes.exchange());
  });

  it("without the exchange's secret, the signature check answers 503 too", async () => {
    const writes = await start({}, { exchangeServiceSecret: undefined });
    assert.throws(
      () => writes.exchange(),
      (error: unknown) => error instanceof ApiError && error.status === 503,
    );
  });

  it("bounds the calls waiting: past maxPending they answer 503 with Retry-After", async () => {
    const writes = await start({ maxPending: 2 });
    const late = [writes.service().spawn(spawn("LATE")), writes.service().spawn(spawn("LATE"))];
    await assert.rejects(
      writes.service().spawn(spawn("ECHO")),
      (error: unknown) => error instanceof ApiError && error.status === 503 && error.headers["Retry-After"] === "1",
    );
    assert.deepEqual(
      (await Promise.all(late)).map((a) => a.status),
      [201, 201],
    );
    assert.equal((await writes.service().spawn(spawn("ECHO"))).status, 201);
  });

  it("a call the thread never answers answers 504 WRITE_PENDING after callTimeoutMs: its outcome is not known", async () => {
    const writes = await start({ callTimeoutMs: 200 });
    await assert.rejects(
      writes.service().spawn(spawn("HANG")),
      (error: unknown) =>
        error instanceof ApiError &&
        error.status === 504 &&
        error.code === "WRITE_PENDING" &&
        /Idempotency-Key/.test(error.message),
    );
  });

  it("when the thread dies, its calls in flight answer 504 WRITE_PENDING and a new thread serves", async () => {
    const writes = await start();
    const inFlight = writes.service().spawn(spawn("HANG"));
    const pendingWrite = (error: unknown) =>
      error instanceof ApiError && error.status === 504 && error.code === "WRITE_PENDING";
    await assert.rejects(writes.service().spawn(spawn("DIE")), pendingWrite);
    await assert.rejects(inFlight, pendingWrite);
    // Until the new thread is ready, calls are refused before anything is done: 503.
    assert.throws(
      () => writes.service(),
      (error: unknown) => error instanceof ApiError && error.status === 503,
    );
    await waitFor(serving(writes));
    assert.equal((await writes.service().spawn(spawn("ECHO"))).status, 201);
  });

  it("closed while its thread is restarting, it starts no new thread", async () => {
    const writes = await start();
    await assert.rejects(writes.service().spawn(spawn("DIE")));
    await writes.close();
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // past the first restart delay (0.5 s)
    assert.equal(serving(writes)(), false);
    assert.throws(() => writes.service(), /closing/);
  });

  it("closed before its thread is ready, its readiness stops waiting", async () => {
    const writes = startWritesThread(config, { entry });
    await writes.close();
    await writes.ready;
    assert.throws(() => writes.service(), /closing/);
  });
});
