import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import { Hono } from "hono";
import { errorHandler } from "../../lib/http/index.ts";
import { createTestDatabase, type TestDatabase } from "../../support/api/database.ts";
import { pgliteCostEstimator } from "./cost.ts";
import { sqlGuard, type SqlGuardOptions } from "./sql-guard.ts";
import { MAX_SQL_RELATIONS } from "./validate.ts";

/** The guard in front of a stand-in for Ponder's client(): PGlite's real planner, Ponder's answers. */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const EIGHT_WAY_JOIN = `select count(*) from ${Array.from({ length: 8 }, (_, i) => `swap s${i}`).join(", ")}`;
const encode = (sql: string, params: unknown[] = []) => encodeURIComponent(JSON.stringify({ json: { sql, params } }));

function appWith(options: Partial<SqlGuardOptions>, ponder: (c: any) => Response | Promise<Response>) {
  const app = new Hono();
  let ran = 0;
  app.use(
    "/sql/*",
    sqlGuard({
      estimate: pgliteCostEstimator(database.client as never),
      maxCost: 100_000,
      maxRows: 10_000,
      ...options,
    }),
    async (c) => {
      ran++;
      return ponder(c);
    },
  );
  app.onError(errorHandler());
  return { app, ran: () => ran };
}

async function call(app: Hono, path: string) {
  const res = await app.request(path);
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    body: (await res.json()) as { code: string; message: string },
  };
}

describe("sqlGuard", () => {
  it("refuses the 8-way cartesian join before it runs, from PGlite's EXPLAIN", async () => {
    const { app, ran } = appWith({}, (c) => c.json({ rows: [] }));
    const res = await call(app, `/sql/db?sql=${encode(EIGHT_WAY_JOIN)}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_PARAM");
    assert.match(res.body.message, /^sql: estimated cost \d+(e\+\d+)? exceeds the limit of 100000 \(SQL_MAX_COST\)/);
    assert.equal(ran(), 0, "Ponder never saw the query");
  });

  it("refuses the join on a small analyzed table too, where its cost looks cheap but its rows do not", async () => {
    // The seed's case: 7 swaps with statistics; 7^8 = 5.7 million joined rows for ~60,000 cost units.
    const small = await createTestDatabase();
    try {
      await small.client.exec(
        `insert into swap select 's' || g, '0xp', '0xt', '0xs', '0xr', true, 1, 1, 1, 1, 1, g, g, 0, g, '0xh' from generate_series(1, 7) g; analyze swap;`,
      );
      const plan = await pgliteCostEstimator(small.client as never)({ sql: EIGHT_WAY_JOIN, params: [] });
      assert.ok(plan.cost < 100_000, `cost ${plan.cost}`);
      assert.ok(plan.rows > 5_000_000, `rows ${plan.rows}`);
      const app = new Hono();
      app.use(
        "/sql/*",
        sqlGuard({ estimate: pgliteCostEstimator(small.client as never), maxCost: 100_000, maxRows: 50_000 }),
        async (c) => c.json({}),
      );
      app.onError(errorHandler());
      const res = await call(app, `/sql/db?sql=${encode(EIGHT_WAY_JOIN)}`);
      assert.equal(res.status, 400);
      assert.match(res.body.message, /^sql: estimated \d+ rows at one step exceed the limit of 50000 \(SQL_MAX_ROWS\)/);
    } finally {
      await small.close();
    }
  });

  it("passes indexed lookups and small scans through to Ponder", async () => {
    const { app, ran } = appWith({}, (c) => c.json({ rows: [{ ok: 1 }] }));
    for (const sql of [
      "select symbol from agent_token order by spawned_at",
      "select * from swap where token = $1 order by timestamp desc limit 100",
    ]) {
      const res = await app.request(`/sql/db?sql=${encode(sql, sql.includes("$1") ? ["0xab"] : [])}`);
      assert.equal(res.status, 200, sql);
    }
    assert.equal(ran(), 2);
  });

  it("refuses queries planned to return more rows than the limit", async () => {
    const { app } = appWith({ maxRows: 5 }, (c) => c.json({ rows: [] }));
    const res = await call(app, `/sql/db?sql=${encode("select * from swap")}`);
    assert.equal(res.status, 400);
    assert.match(res.body.message, /^sql: estimated \d+ rows at one step exceed the limit of 5 \(SQL_MAX_ROWS\)/);
  });

  it("answers 400 INVALID_PARAM for a missing, undecodable or malformed query and for the database's refusal", async () => {
    const { app, ran } = appWith({}, (c) => c.json({ rows: [] }));
    const cases: [string, RegExp][] = [
      ["/sql/db", /^sql: required/],
      ["/sql/db?sql=%7Bnot%20json", /^sql: must be a superjson-encoded query/],
      [
        `/sql/db?sql=${encodeURIComponent(JSON.stringify({ json: { sql: 1 } }))}`,
        /^sql: must be a superjson-encoded \{sql, params\}/,
      ],
      [`/sql/db?sql=${encode(`select '${"x".repeat(5_001)}'`)}`, /^sql: longer than 5000 characters/],
      [`/sql/db?sql=${encode("select nope from swap")}`, /^sql: column "nope" does not exist/],
      [`/sql/db?sql=${encode("selec 1")}`, /^sql: syntax error/],
    ];
    for (const [path, message] of cases) {
      const res = await call(app, path);
      assert.equal(res.status, 400, path);
      assert.match(res.type, /application\/json/);
      assert.deepEqual(Object.keys(res.body).sort(), ["code", "message"]);
      assert.equal(res.body.code, "INVALID_PARAM");
      assert.match(res.body.message, message, path);
    }
    assert.equal(ran(), 0);
  });

  it("validates with Ponder's allowlist before EXPLAIN: a call folded at plan time is refused at once", async () => {
    // Unfixed, EXPLAIN ran first and the planner built the 100 MB string: 2 s on PGlite, then the
    // query passed (cost 0.01) on to Ponder, which would have refused it only afterwards.
    let planned = 0;
    const estimate = pgliteCostEstimator(database.client as never);
    const { app, ran } = appWith(
      {
        estimate: (q) => {
          planned++;
          return estimate(q);
        },
      },
      (c) => c.json({ rows: [] }),
    );
    const res = await call(app, `/sql/db?sql=${encode("select length(repeat('x', 100000000))")}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      code: "INVALID_PARAM",
      message: "sql: Function call not supported (Ponder's /sql allowlist)",
    });
    assert.equal(planned, 0, "EXPLAIN never saw the query");
    assert.equal(ran(), 0);
    for (const [sql, message] of [
      ["select * from pg_class", /System tables not supported/],
      ["select * from public.swap", /Schema name not supported/],
      ["select regexp_replace(symbol, 'a', 'b') from agent_token", /Function call not supported/],
      ["select 1; select 2", /must be exactly one statement/],
    ] as const) {
      const refused = await call(app, `/sql/db?sql=${encode(sql)}`);
      assert.equal(refused.status, 400, sql);
      assert.match(refused.body.message, message, sql);
    }
    assert.equal(planned, 0);
  });

  it(`refuses a query naming more than ${MAX_SQL_RELATIONS} relations before planning it`, async () => {
    let planned = 0;
    const { app, ran } = appWith(
      {
        estimate: async () => {
          planned++;
          return { cost: 1, rows: 1 };
        },
      },
      (c) => c.json({ rows: [] }),
    );
    const from = (n: number) => `select count(*) from ${Array.from({ length: n }, (_, i) => `swap s${i}`).join(", ")}`;
    const res = await call(app, `/sql/db?sql=${encode(from(200))}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.message, `sql: names 200 relations; at most ${MAX_SQL_RELATIONS} are allowed`);
    // Subqueries and joins count too; the limit itself passes.
    const nested = `select count(*) from (${from(7)}) a join (${from(6)}) b on true`;
    assert.match((await call(app, `/sql/db?sql=${encode(nested)}`)).body.message, /names 15 relations/);
    assert.equal(planned, 0);
    assert.equal((await app.request(`/sql/db?sql=${encode(from(MAX_SQL_RELATIONS))}`)).status, 200);
    assert.equal([planned, ran()].join(), "1,1");
  });

  it("refuses replace() nested in replace(), which multiplies a string at each level", async () => {
    let bomb = "'x'";
    for (let i = 0; i < 8; i++) bomb = `replace(${bomb}, 'x', 'xxxxxxxxxx')`;
    let planned = 0;
    const { app } = appWith(
      {
        estimate: async () => {
          planned++;
          return { cost: 1, rows: 1 };
        },
      },
      (c) => c.json({ rows: [] }),
    );
    const res = await call(app, `/sql/db?sql=${encode(`select length(${bomb})`)}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.message, "sql: replace() inside another replace() is not allowed");
    const single = await app.request(
      `/sql/db?sql=${encode("select replace(lower(symbol), 'a', 'b') from agent_token")}`,
    );
    assert.equal(single.status, 200);
    assert.equal(planned, 1);
  });

  it("answers a server fault behind Ponder as 500 INTERNAL with a generic message, logging the detail", async () => {
    const logged: unknown[] = [];
    const { app } = appWith({ estimate: undefined, log: (_m, detail) => logged.push(detail) }, (c) =>
      c.text("Connection terminated unexpectedly: host db-internal.local:5432", 500),
    );
    const res = await call(app, `/sql/db?sql=${encode("select 1")}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { code: "INTERNAL", message: "Internal error" });
    assert.deepEqual(logged, ["Connection terminated unexpectedly: host db-internal.local:5432"]);
  });

  it("answers the query's own run-time data errors, as Ponder passes them on, with 400", async () => {
    // The real message of a run-time error, from the database the guard plans on.
    const sql = "select 1 / (block_number - block_number) from swap";
    await database.client.exec(
      `insert into swap select 's1', '0xp', '0xt', '0xs', '0xr', true, 1, 1, 1, 1, 1, 1, 1, 0, 1, '0xh'`,
    );
    try {
      const message = await database.client.query(sql).then(
        () => "none",
        (e: Error) => e.message,
      );
      assert.equal(message, "division by zero");
      const { app } = appWith({ estimate: undefined, log: () => assert.fail("not a fault") }, (c) =>
        c.text(message, 500),
      );
      assert.deepEqual((await call(app, `/sql/db?sql=${encode(sql)}`)).body, {
        code: "INVALID_PARAM",
        message: "sql: division by zero",
      });
    } finally {
      await database.client.exec("delete from swap");
    }
  });

  it("answers a failing EXPLAIN as 500 unless the database blames the query", async () => {
    const logged: unknown[] = [];
    const lost = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });
    const { app } = appWith({ estimate: () => Promise.reject(lost), log: (_m, detail) => logged.push(detail) }, (c) =>
      c.json({}),
    );
    const res = await call(app, `/sql/db?sql=${encode("select 1")}`);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { code: "INTERNAL", message: "Internal error" });
    assert.deepEqual(logged, [lost]);
  });

  it("turns Ponder's plain-text failures into {code, message}, naming a statement timeout", async () => {
    const texts = ["SelectStmt not supported", "canceling statement due to statement timeout"];
    let next = 0;
    const { app } = appWith({ estimate: undefined, statementTimeoutMs: 1_500 }, (c) => {
      c.header("X-Kept", "yes");
      return c.text(texts[next++], 500);
    });
    const refused = await app.request(`/sql/db?sql=${encode("select 1")}`);
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get("x-kept"), "yes");
    assert.deepEqual(await refused.json(), { code: "INVALID_PARAM", message: "sql: SelectStmt not supported" });
    const timedOut = await call(app, `/sql/db?sql=${encode("select 1")}`);
    assert.equal(timedOut.status, 400);
    assert.equal(
      timedOut.body.message,
      "sql: cancelled: the query ran past the statement timeout of 1500 ms (SQL_STATEMENT_TIMEOUT_MS); narrow the query",
    );
  });

  it("cannot change data through EXPLAIN: the estimate runs in a read-only transaction", async () => {
    const estimate = pgliteCostEstimator(database.client as never);
    await assert.rejects(estimate({ sql: "select 1; delete from swap", params: [] }));
    const plan = await estimate({ sql: "delete from swap", params: [] });
    assert.ok(plan.cost >= 0);
    assert.equal((await database.client.query<{ n: number }>("select count(*)::int as n from swap")).rows[0].n, 0);
  });
});
