import assert from "node:assert/strict";
import { afterEach, describe, it } from "vitest";
import { UnavailableError } from "../../../lib/unavailable.ts";
import type { WriteOutcome } from "../outcome.ts";
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
  /** Thrown while nothing was done: the writes' HTTP side answers it 503. */
  const unavailable = (error: unknown) => error instanceof UnavailableError;
  const echoed = (outcome: WriteOutcome) => {
    if (!outcome.ok) assert.fail(`${outcome.code}: ${outcome.message}`);
    return outcome.value as { method: string; request: { tokenRef: string } };
  };
  const pendingWrite = (outcome: WriteOutcome) =>
    !outcome.ok && outcome.code === "WRITE_PENDING" && /Idempotency-Key/.test(outcome.message);

  it("carries a call across and its outcome back, bigints and all", async () => {
    const writes = await start();
    const request = { ...spawn("ECHO"), caller: { ...spawn("ECHO").caller, level: 30 }, extra: 10n ** 30n };
    const outcome = await writes.service().spawn(request);
    assert.deepEqual(echoed(outcome), { method: "spawn", request });
  });

  it("answers many calls at once, each with its own outcome", async () => {
    const writes = await start();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writes.service().vote({ ...spawn("ECHO"), body: { vote: "yes" } as never, tokenRef: String(i) }),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => echoed(o).request.tokenRef),
      Array.from({ length: 50 }, (_, i) => String(i)),
    );
  });

  it("carries a rejection back as a value, rethrows the thread's UnavailableError as one, and a bug as a plain error", async () => {
    const writes = await start();
    assert.deepEqual(await writes.service().spawn(spawn("TAKEN")), {
      ok: false,
      code: "SYMBOL_TAKEN",
      message: "TAKEN exists",
    });
    await assert.rejects(writes.service().spawn(spawn("AWAY")), (error: unknown) => {
      assert.ok(error instanceof UnavailableError);
      assert.deepEqual(
        [error.dependency, error.message, error.retryAfterSeconds],
        ["exchange", "the exchange is away", 2],
      );
      return true;
    });
    await assert.rejects(writes.service().spawn(spawn("BUG")), (error: unknown) => {
      assert.ok(!(error instanceof UnavailableError));
      assert.match((error as Error).message, /a bug/);
      return true;
    });
  });

  it("says why it does not serve, as unavailable, while the thread is not ready", async () => {
    const writes = await start({}, { notReady: "signed writes are starting: no chain" } as never);
    assert.throws(
      () => writes.service(),
      (error: unknown) => unavailable(error) && /no chain/.test((error as Error).message),
    );
    // The signature check needs only the exchange, which stays on this thread.
    assert.ok(writes.exchange());
  });

  it("without the exchange's secret, the signature check is unavailable too", async () => {
    const writes = await start({}, { exchangeServiceSecret: undefined });
    assert.throws(() => writes.exchange(), unavailable);
  });

  it("bounds the calls waiting: past maxPending they are unavailable, retry after 1 s", async () => {
    const writes = await start({ maxPending: 2 });
    const late = [writes.service().spawn(spawn("LATE")), writes.service().spawn(spawn("LATE"))];
    await assert.rejects(
      writes.service().spawn(spawn("ECHO")),
      (error: unknown) => error instanceof UnavailableError && error.retryAfterSeconds === 1,
    );
    assert.deepEqual(
      (await Promise.all(late)).map((o) => o.ok),
      [true, true],
    );
    assert.ok((await writes.service().spawn(spawn("ECHO"))).ok);
  });

  it("a call the thread never answers is rejected WRITE_PENDING after callTimeoutMs: its outcome is not known", async () => {
    const writes = await start({ callTimeoutMs: 200 });
    assert.ok(pendingWrite(await writes.service().spawn(spawn("HANG"))));
  });

  it("when the thread dies, its calls in flight are rejected WRITE_PENDING and a new thread serves", async () => {
    const writes = await start();
    const inFlight = writes.service().spawn(spawn("HANG"));
    assert.ok(pendingWrite(await writes.service().spawn(spawn("DIE"))));
    assert.ok(pendingWrite(await inFlight));
    // Until the new thread is ready, calls are refused before anything is done: unavailable.
    assert.throws(() => writes.service(), unavailable);
    await waitFor(serving(writes));
    assert.ok((await writes.service().spawn(spawn("ECHO"))).ok);
  });

  it("closed while its thread is restarting, it starts no new thread", async () => {
    const writes = await start();
    assert.ok(pendingWrite(await writes.service().spawn(spawn("DIE"))));
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
