import type { Env, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../../lib/http/index.ts";
import { sqlGuard, type SqlGuardOptions } from "./sql-guard.ts";

export {
  type ClientQuery,
  pgCostEstimator,
  pgliteCostEstimator,
  type PgliteLike,
  type PgPoolLike,
  type PlanEstimate,
} from "./cost.ts";
export { boundStatementTime, type PoolLike } from "./statement-timeout.ts";
export { MAX_SQL_LENGTH, parseClientQuery, sqlGuard, type SqlGuardOptions } from "./sql-guard.ts";
export { MAX_SQL_RELATIONS, validateClientSql } from "./validate.ts";

/** The bounds handed to Ponder's graphql() middleware (its defaults are depth 100, 30 aliases). */
export const GRAPHQL_LIMITS = { maxOperationDepth: 8, maxOperationAliases: 10, maxOperationTokens: 1_000 } as const;
/** A GraphQL document within GRAPHQL_LIMITS is a few KiB at most. */
export const GRAPHQL_MAX_BODY_BYTES = 16 * 1024;

export interface ExplorerOptions extends SqlGuardOptions {
  /** Ponder's SQL-over-HTTP middleware, `client({ db, schema })`, served under /sql/*. */
  sql: MiddlewareHandler;
  /** Ponder's GraphQL middleware, `graphql({ db, schema }, GRAPHQL_LIMITS)`, served at /graphql. */
  graphql: MiddlewareHandler;
}

/**
 * Mounts Ponder's explorer endpoints behind their guards; the caller has already put the per-IP
 * rate limit in front of both paths.
 */
export function mountExplorer<E extends Env>(app: Hono<E>, options: ExplorerOptions): void {
  app.use("/sql/*", sqlGuard(options), options.sql);
  const limitBody = bodyLimit({
    maxSize: GRAPHQL_MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "PAYLOAD_TOO_LARGE", `Request body over ${GRAPHQL_MAX_BODY_BYTES / 1024} KiB`);
    },
  });
  app.use("/graphql", limitBody, options.graphql);
}
