/** A client's `/sql` query as Ponder's client sends it. */
export interface ClientQuery {
  sql: string;
  params: unknown[];
}

/** The part of PGlite this module uses (Ponder's embedded database instance). */
export interface PgliteLike {
  transaction<T>(
    fn: (tx: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>,
  ): Promise<T>;
}

interface PlanNode {
  "Total Cost": number;
  "Plan Rows": number;
  Plans?: PlanNode[];
}
type ExplainRow = { "QUERY PLAN": { Plan: PlanNode }[] };

/** The planner's estimates of a query. */
export interface PlanEstimate {
  /** Total cost, in the planner's units (about one page read). */
  cost: number;
  /** The most rows any step of the plan produces, the result included. */
  rows: number;
}

/** The largest row estimate of any node: a join's output is where a cartesian product shows. */
function maxRows(node: PlanNode): number {
  return Math.max(node["Plan Rows"], ...(node.Plans ?? []).map(maxRows));
}

/**
 * The planner's total cost and largest row count of a query, from EXPLAIN (which plans and never
 * executes), in a read-only transaction. Estimates are coarse, but a cartesian product or a
 * whole large table is orders of magnitude above an indexed lookup, which is what the bound
 * needs. Rows matter more than cost on PGlite: the 8-way join of the seed's 7 swaps is only
 * about 60,000 cost units, yet 5.7 million joined rows, 55 s of WebAssembly.
 */
export function pgliteCostEstimator(pglite: PgliteLike): (query: ClientQuery) => Promise<PlanEstimate> {
  return (query) =>
    pglite.transaction(async (tx) => {
      await tx.query("SET TRANSACTION READ ONLY");
      // PGlite ships with enable_seqscan off, which adds a flat 1e10 to the cost of any plan with
      // a sequential scan and would hide the real work: plan as Postgres normally would.
      await tx.query("SET LOCAL enable_seqscan = on");
      const { rows } = await tx.query<ExplainRow>(`EXPLAIN (FORMAT JSON) ${query.sql}`, query.params);
      return estimateOf(rows);
    });
}

function estimateOf(rows: ExplainRow[]): PlanEstimate {
  const plan = rows[0]?.["QUERY PLAN"]?.[0]?.Plan;
  if (typeof plan?.["Total Cost"] !== "number" || typeof plan["Plan Rows"] !== "number") throw new Error("no plan");
  return { cost: plan["Total Cost"], rows: maxRows(plan) };
}

/** The part of a pg Pool this module uses (Ponder's read-only pool). */
export interface PgPoolLike {
  connect(): Promise<{
    query<R>(config: { text: string; values?: unknown[]; queryMode?: "extended" }): Promise<{ rows: R[] }>;
    release(): void;
  }>;
}

/**
 * The same estimate on PostgreSQL, so an expensive query is refused before it runs rather than
 * cancelled at statement_timeout: Ponder retries a cancelled /sql query up to 9 times with
 * backoff (1 s timeout: 74 s until the client hears back), holding a connection all along.
 * The extended protocol refuses several statements in one text (the simple one would run them).
 */
export function pgCostEstimator(pool: PgPoolLike, timeoutMs: number): (query: ClientQuery) => Promise<PlanEstimate> {
  return async (query) => {
    const client = await pool.connect();
    try {
      await client.query({ text: "BEGIN READ ONLY" });
      await client.query({ text: `SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}` });
      const { rows } = await client.query<ExplainRow>({
        text: `EXPLAIN (FORMAT JSON) ${query.sql}`,
        values: query.params,
        queryMode: "extended",
      });
      return estimateOf(rows);
    } finally {
      await client.query({ text: "ROLLBACK" }).catch(() => undefined);
      client.release();
    }
  };
}
