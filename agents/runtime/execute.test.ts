import type { TransactionReceipt } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Journal, type Relayer, TxPendingError, type WriteKind } from "../../relayer/index.ts";
import { openTestJournal } from "../../support/relayer/journal.ts";
import { finishSetup, type Operator } from "./execute.ts";

let journal: Journal;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ journal, close } = await openTestJournal("execute-test"));
});
afterAll(() => close());

const HASH = `0x${"ab".repeat(32)}` as const;
/** Journalled one after another: openWrites() returns them in this order. */
let clock = Date.now();

async function journalled(id: string, nonce: number | undefined, kind: WriteKind = "agent_setup") {
  const write = {
    id,
    userId: "worker",
    kind,
    idempotencyKey: null,
    requestHash: "",
    feeHeld: false,
    createdAt: ++clock,
  };
  if (nonce === undefined) await journal.insertWrite(write);
  else
    await journal.addTx(
      { hash: `0x${nonce.toString(16).padStart(64, "0")}`, writeId: id, nonce, raw: "0x02", sentAt: Date.now() },
      write,
    );
}

/** An operator whose relayer answers mined() from `answers` and notes each call. */
function operator(answers: Record<string, "mined" | "pending">) {
  const calls: { id: string; nudge?: boolean }[] = [];
  const relayer = {
    mined: async (id: string, options: { nudge?: boolean } = {}) => {
      calls.push({ id, nudge: options.nudge });
      if (answers[id] === "pending") throw new TxPendingError(HASH);
      return { status: "success", transactionHash: HASH } as TransactionReceipt;
    },
  } as unknown as Relayer;
  return { op: { journal, relayer } as unknown as Operator, calls };
}

describe("finishSetup", () => {
  it("sends again and waits for each open set-up write, forgets one with no transaction, leaves intents' writes", async () => {
    await journalled("setup:approve:a:p:1", 7);
    await journalled("setup:fund:b:2", 8);
    await journalled("setup:approve:c:p:3", undefined);
    await journalled("worker:5:w1:0:swap", 9, "agent_swap");
    const { op, calls } = operator({});

    expect(await finishSetup(op)).toBe(3);
    expect(calls).toEqual([
      { id: "setup:approve:a:p:1", nudge: true },
      { id: "setup:fund:b:2", nudge: true },
    ]);
    expect(await journal.byId("setup:approve:a:p:1")).toMatchObject({ state: "done", answerStatus: 200 });
    expect(await journal.byId("setup:fund:b:2")).toMatchObject({ state: "done" });
    expect(await journal.byId("setup:approve:c:p:3")).toBeUndefined();
    expect(await journal.byId("worker:5:w1:0:swap")).toMatchObject({ state: "open" });
    // Nothing left: a second pass has nothing to do.
    expect(await finishSetup(op)).toBe(0);
  });

  it("throws while a set-up transaction is still not mined, and leaves it open for the next try", async () => {
    await journalled("setup:approve:d:p:4", 10);
    const { op } = operator({ "setup:approve:d:p:4": "pending" });
    await expect(finishSetup(op)).rejects.toBeInstanceOf(TxPendingError);
    expect(await journal.byId("setup:approve:d:p:4")).toMatchObject({ state: "open" });
    expect((await journal.openWrites("agent_setup")).map((w) => w.id)).toEqual(["setup:approve:d:p:4"]);
  });
});
