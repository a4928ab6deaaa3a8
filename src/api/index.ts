// Ponder's API entry point: GraphQL and SQL for explorers, and the ecosystem API from api/.
import { db } from "ponder:api";
import schema from "ponder:schema";
import { Hono } from "hono";
import { client, graphql } from "ponder";
import { createEcosystemApi } from "../../api/index.ts";
import { apiEnv, parseEnv } from "../../config/env.ts";
import { errorHandler, invalidParam } from "../../lib/http/index.ts";

const env = parseEnv(apiEnv);

const app = new Hono();
app.use("/sql/*", client({ db, schema }));
app.use("/graphql", graphql({ db, schema }));
app.route("/", createEcosystemApi({ db, rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE, trustProxy: env.TRUST_PROXY }));
// Ponder's SQL client throws on an undecodable `sql` parameter: the client's fault, not a 500.
app.onError(
  errorHandler({
    classify: (error, c) =>
      error instanceof SyntaxError && c.req.path.startsWith("/sql/") ? invalidParam("sql", "must be a superjson-encoded query") : undefined,
  }),
);

export default app;
