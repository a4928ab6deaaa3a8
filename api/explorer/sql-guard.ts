import type { MiddlewareHandler } from "hono";
import { ApiError, invalidParam } from "../../lib/http/index.ts";
import type { ClientQuery, PlanEstimate } from "./cost.ts";
import { validateClientSql } from "./validate.ts";

/** The query `@ponder/client` sends in the `sql` parameter (superjson: `{json: {sql, params}}`). */
/** Ponder refuses longer queries anyway (its SQL parser's limit); refusing first keeps EXPLAIN off them. */
export const MAX_SQL_LENGTH = 5_000;

export interface SqlGuardOptions {
  /**
   * The planner's estimates of a query (EXPLAIN: plans without running it, though planning
   * itself evaluates constant expressions, hence validateClientSql first): pgliteCostEstimator
   * or pgCostEstimator. Undefined: no cost bound before the query runs.
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
  /** Where the detail of a server fault goes (the client gets a generic message); default console.error. */
  log?: (message: string, detail: unknown) => void;
}

/**
 * Sits in front of Ponder's SQL-over-HTTP middleware (`client()`). In this order, each step
 * refusing with `400 INVALID_PARAM` before the next one runs: the parameter's encoding and
 * length; the SQL's syntax, Ponder's own allowlist and the query's shape (validateClientSql),
 * so nothing the planner would work hard on reaches EXPLAIN; then, where `estimate` is given,
 * the planned cost and rows. Ponder answers its failures as text with status 500; they become
 * `{code, message}`: a statement timeout or a validator refusal is the query's fault (400),
 * anything else a server fault (500 INTERNAL, detail logged, never shown).
 */
export function sqlGuard({
  estimate,
  maxCost,
  maxRows,
  statementTimeoutMs,
  log = console.error,
}: SqlGuardOptions): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path !== "/sql/db" && c.req.path !== "/sql/live") return next();
    const query = parseClientQuery(c.req.query("sql"));
    await validateClientSql(query.sql);
    if (estimate) {
      let plan: PlanEstimate;
      try {
        plan = await estimate(query);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (isQueryFault(error)) throw invalidParam("sql", firstLine(error));
        log(`sql: EXPLAIN failed (request ${c.get("requestId" as never) ?? "-"})`, error);
        throw new ApiError(500, "INTERNAL", "Internal error");
      }
      if (!(plan.cost <= maxCost)) {
        throw invalidParam(
          "sql",
          `estimated cost ${Math.round(plan.cost)} exceeds the limit of ${maxCost} (SQL_MAX_COST); narrow the query`,
        );
      }
      if (!(plan.rows <= maxRows)) {
        throw invalidParam(
          "sql",
          `estimated ${Math.round(plan.rows)} rows at one step exceed the limit of ${maxRows} (SQL_MAX_ROWS); filter, join on keys or add a limit`,
        );
      }
    }
    try {
      await next();
    } catch (error) {
      // Ponder decodes the parameter again with superjson, which also reads `meta`.
      if (error instanceof SyntaxError || error instanceof TypeError)
        throw invalidParam("sql", "must be a superjson-encoded query");
      throw error;
    }
    const res = c.res;
    if (res.status < 400 || (res.headers.get("content-type") ?? "").includes("application/json")) return;
    const text = (await res.text()).trim();
    const body = answerOf(res.status, text, statementTimeoutMs);
    if (body.status >= 500 && body.code === "INTERNAL")
      log(`sql: Ponder answered ${res.status} (request ${c.get("requestId" as never) ?? "-"})`, text);
    // A new response keeping Ponder's and the earlier middlewares' headers (rate limit, request
    // id), but not the text's type and length.
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    headers.set("content-type", "application/json");
    c.res = undefined;
    c.res = new Response(JSON.stringify({ code: body.code, message: body.message }), { status: body.status, headers });
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
/**
 * The refusals of Ponder's validator (utils/sql-parse.js), should one get past validateClientSql
 * (the two run the same allowlist): the client's query, not a fault.
 */
const PONDER_REFUSAL = /^(?:\w+ not supported|Invalid query|Invalid CTE|Missing "sql" query parameter)$/;
/**
 * PostgreSQL's run-time data exceptions (SQLSTATE class 22), which Ponder passes on as their
 * message only: the query's arithmetic or casts on the data, not a fault.
 */
const DATA_EXCEPTION =
  /^(?:division by zero|invalid input syntax for|invalid input value for|value too long for|numeric field overflow|\S+ out of range|value overflows|cannot take (?:the )?(?:logarithm|square root) of|zero raised to a negative power|a negative number raised to a non-integer power|negative substring length not allowed)/;

/**
 * Ponder's plain-text answer as `{code, message}`. Its 503s are its own fixed texts about live
 * queries. A 500 carries a raw database error: only the timeout and the validator's refusals
 * are the query's fault; anything else (a lost connection, a pool error) is ours, and its text
 * may name internals.
 */
export function answerOf(
  status: number,
  text: string,
  statementTimeoutMs?: number,
): { status: number; code: string; message: string } {
  if (status === 503) return { status, code: "UNAVAILABLE", message: text || "Unavailable" };
  if (STATEMENT_TIMEOUT.test(text)) {
    const limit = statementTimeoutMs === undefined ? "" : ` of ${statementTimeoutMs} ms (SQL_STATEMENT_TIMEOUT_MS)`;
    return {
      status: 400,
      code: "INVALID_PARAM",
      message: `sql: cancelled: the query ran past the statement timeout${limit}; narrow the query`,
    };
  }
  if (status < 500 || PONDER_REFUSAL.test(text) || DATA_EXCEPTION.test(text))
    return { status: 400, code: "INVALID_PARAM", message: `sql: ${text || "refused"}` };
  return { status: 500, code: "INTERNAL", message: "Internal error" };
}

/**
 * SQLSTATE classes of errors about the query itself: 0A unsupported, 21 cardinality, 22 data,
 * 25 (a write in the read-only transaction), 42 syntax or access, 54 program limits, and 57014
 * (planning ran past the statement timeout). The rest (08 connection, 53 resources, XX internal,
 * no code at all) are the server's.
 */
const QUERY_FAULT = /^(?:0A|21|22|25|42|54)...$|^57014$/;

function isQueryFault(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && QUERY_FAULT.test(code);
}

/** A database error's first line: the part about the client's query. */
function firstLine(error: Error) {
  return error.message.split("\n")[0] || "refused by the database";
}
