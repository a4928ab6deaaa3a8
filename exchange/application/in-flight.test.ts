import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { InFlight } from "./in-flight.ts";

describe("InFlight", () => {
  it("runs a key once while it is in flight; repeats get its result as a replay", async () => {
    const inFlight = new InFlight<string>();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fresh = async () => {
      runs++;
      await gate;
      return "first";
    };
    const calls = [
      inFlight.once("k", async () => null, fresh),
      inFlight.once("k", async () => null, fresh),
      inFlight.once("k", async () => null, fresh),
    ];
    await new Promise((r) => setImmediate(r));
    release();
    const results = await Promise.all(calls);
    assert.equal(runs, 1);
    assert.deepEqual(
      results.map((r) => [r.value, r.replay]),
      [
        ["first", false],
        ["first", true],
        ["first", true],
      ],
    );
    assert.equal(inFlight.size, 0, "nothing kept once done");
  });

  it("asks the store once a key is done, and frees a key whose command was refused", async () => {
    const inFlight = new InFlight<string>();
    assert.deepEqual(
      await inFlight.once(
        "k",
        async () => "stored",
        async () => assert.fail("must not run"),
      ),
      { value: "stored", replay: true },
    );
    await assert.rejects(
      inFlight.once(
        "x",
        async () => null,
        async () => Promise.reject(new Error("refused")),
      ),
      /refused/,
    );
    assert.deepEqual(
      await inFlight.once(
        "x",
        async () => null,
        async () => "retried",
      ),
      { value: "retried", replay: false },
    );
  });

  it("keeps different keys apart", async () => {
    const inFlight = new InFlight<number>();
    const [a, b] = await Promise.all([
      inFlight.once(
        "a",
        async () => null,
        async () => 1,
      ),
      inFlight.once(
        "b",
        async () => null,
        async () => 2,
      ),
    ]);
    assert.deepEqual([a.value, b.value, a.replay, b.replay], [1, 2, false, false]);
  });
});
