import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import pg from "pg";
import { pgCostEstimator } from "./cost.ts";
import { boundStatementTime } from "./statement-timeout.ts";

/** The PostgreSQL bounds against a real server: only when DATABASE_URL is set, in a schema of its own. */

const url = process.env.DATABASE_URL;
const schema = `explorer_test_${process.pid}`;
let connections: pg.Pool;

describe("explorer bounds on PostgreSQL", { skip: !url /* DATABASE_URL is not set */ }, () => {
  beforeAll(async () => {
    connections = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
    await connections.query(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.swap (id int); INSERT INTO ${schema}.swap SELECT generate_series(1, 12); ANALYZE ${schema}.swap`,
    );
  });
  afterAll(async () => {
    await connections.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await connections.end();
  });

  it("boundStatementTime cancels a query at the timeout, on connections opened before it too", async () => {
    const early = await connections.connect();
    early.release();
    boundStatementTime(connections, 300);
    const started = Date.now();
    await assert.rejects(connections.query("SELECT pg_sleep(5)"), /canceling statement due to statement timeout/);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 2_000, `cancelled after ${elapsed} ms`);
    assert.equal((await connections.query("SELECT 1 AS one")).rows[0].one, 1, "the connection still serves");
  });

  it("pgCostEstimator sees the 8-way join's rows and never runs a second statement", async () => {
    const estimate = pgCostEstimator(connections, 1_000);
    const join = `select count(*) from ${Array.from({ length: 8 }, (_, i) => `swap s${i}`).join(", ")}`;
    const plan = await estimate({ sql: join, params: [] });
    assert.ok(plan.rows >= 12 ** 8, `rows ${plan.rows}`);
    await assert.rejects(estimate({ sql: "select 1; delete from swap", params: [] }), /multiple commands/);
    assert.equal((await connections.query("SELECT count(*)::int AS n FROM swap")).rows[0].n, 12);
  });
});
