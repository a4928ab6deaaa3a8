import type { MiddlewareHandler } from "hono";
import { ApiError, invalidParam } from "../../lib/http/index.ts";
import type { PlanEstimate } from "./cost.ts";

/** The query `@ponder/client` sends in the `sql` parameter (superjson: `{json: {sql, params}}`). */
export interface ClientQuery {
  sql: string;
  params: unknown[];
}

/** Ponder refuses longer queries anyway (its SQL parser's limit); refusing first keeps EXPLAIN off them. */
export const MAX_SQL_LENGTH = 5_000;

export interface SqlGuardOptions {
  /**
   * The planner's estimates of a query (EXPLAIN, which never executes it): pgliteCostEstimator
   * or pgCostEstimator. Undefined: no bound before the query runs.
   */
  estimate?: (query: ClientQuery) => Promise<PlanEstimate>;
  /** Queries estimated above this cost are refused before they run. */
  maxCost: number;
  /**
   * Queries planned to produce more rows at any step (a join's output, the result) are refused
   * too: on PGlite, joined rows (~10 µs each) and result rows turned into JavaScript values
   * (200,000 swaps: 8 s) dominate the time, not the cost units.
   */
  maxRows: number;
  /** The statement_timeout in force (PostgreSQL), named in the message of a cancelled query. */
  statementTimeoutMs?: number;
}

/**
 * Sits in front of Ponder's SQL-over-HTTP middleware (`client()`): refuses malformed queries
 * and, where `estimate` is given, queries planned too expensive or too large with `400 INVALID_PARAM` before Ponder sees them, and turns Ponder's
 * plain-text failures (its validator's refusals, the database's errors, a statement timeout)
 * into `{code, message}`, since Ponder answers those as text with status 500.
 */
export function sqlGuard({ estimate, maxCost, maxRows, statementTimeoutMs }: SqlGuardOptions): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path !== "/sql/db" && c.req.path !== "/sql/live") return next();
    const query = parseClientQuery(c.req.query("sql"));
    if (estimate) {
      let plan: PlanEstimate;
      try {
        plan = await estimate(query);
      } catch (error) {
        throw invalidParam("sql", databaseMessage(error));
      }
      if (!(plan.cost <= maxCost)) {
        throw invalidParam("sql", `estimated cost ${Math.round(plan.cost)} exceeds the limit of ${maxCost} (SQL_MAX_COST); narrow the query`);
      }
      if (!(plan.rows <= maxRows)) {
        throw invalidParam("sql", `estimated ${Math.round(plan.rows)} rows at one step exceed the limit of ${maxRows} (SQL_MAX_ROWS); filter, join on keys or add a limit`);
      }
    }
    try {
      await next();
    } catch (error) {
      // Ponder decodes the parameter again with superjson, which also reads `meta`.
      if (error instanceof SyntaxError || error instanceof TypeError) throw invalidParam("sql", "must be a superjson-encoded query");
      throw error;
    }
    const res = c.res;
    if (res.status < 400 || (res.headers.get("content-type") ?? "").includes("application/json")) return;
    const text = (await res.text()).trim();
    const body =
      res.status === 503
        ? { code: "UNAVAILABLE", message: text || "Unavailable" }
        : { code: "INVALID_PARAM", message: `sql: ${explain(text, statementTimeoutMs)}` };
    // A new response keeping Ponder's and the earlier middlewares' headers (rate limit, request
    // id), but not the text's type and length.
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    headers.set("content-type", "application/json");
    c.res = undefined;
    c.res = new Response(JSON.stringify(body), { status: res.status === 503 ? 503 : 400, headers });
  };
}

/** The `sql` parameter as `@ponder/client` encodes it; anything else is the client's mistake. */
export function parseClientQuery(raw: string | undefined): ClientQuery {
  if (raw === undefined || raw === "") throw invalidParam("sql", "required (a superjson-encoded {sql, params})");
  let decoded: unknown;
  try {
    decoded = JSON.parse(raw);
  } catch {
    throw invalidParam("sql", "must be a superjson-encoded query");
  }
  const json = (decoded as { json?: unknown } | null)?.json as { sql?: unknown; params?: unknown } | undefined;
  if (typeof json?.sql !== "string" || !(json.params === undefined || Array.isArray(json.params))) {
    throw invalidParam("sql", "must be a superjson-encoded {sql, params}");
  }
  if (json.sql.length > MAX_SQL_LENGTH) throw invalidParam("sql", `longer than ${MAX_SQL_LENGTH} characters`);
  return { sql: json.sql, params: json.params ?? [] };
}

const STATEMENT_TIMEOUT = /canceling statement due to statement timeout/i;

function explain(text: string, statementTimeoutMs: number | undefined) {
  if (STATEMENT_TIMEOUT.test(text)) {
    const limit = statementTimeoutMs === undefined ? "" : ` of ${statementTimeoutMs} ms (SQL_STATEMENT_TIMEOUT_MS)`;
    return `cancelled: the query ran past the statement timeout${limit}; narrow the query`;
  }
  return text || "refused";
}

/** A database error's own message (a syntax error, an unknown column) is about the client's query. */
function databaseMessage(error: unknown) {
  if (error instanceof ApiError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] || "refused by the database";
}
