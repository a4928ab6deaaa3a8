import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TransactionReceipt } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Journal, openSql, type Relayer, type Sql, TxPendingError } from "../../api/relayer/index.ts";
import { finishSetup, type Operator } from "./execute.ts";

let dir: string;
let sql: Sql;
let journal: Journal;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "execute-test-"));
  sql = await openSql({ dataDir: dir, schema: "execute_test", timeoutMs: 10_000 });
  journal = new Journal(sql);
  await journal.migrate();
});
afterAll(async () => {
  await sql.close();
  await rm(dir, { recursive: true, force: true });
});

const HASH = `0x${"ab".repeat(32)}` as const;
/** Journalled one after another: openWrites() returns them in this order. */
let clock = Date.now();

async function journalled(id: string, nonce: number | undefined) {
  const write = {
    id,
    userId: "worker",
    kind: "agent_setup" as const,
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
    await journalled("worker:5:w1:0:swap", 9);
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
    expect((await journal.openWrites("setup:")).map((w) => w.id)).toEqual(["setup:approve:d:p:4"]);
  });
});
