import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type AuthFailureGuard, createRouteServer, OpenAPIHono } from "../../lib/http/index.ts";
import type { ExchangeClient } from "./exchange-client.ts";
import { proposeRoute, spawnRoute, voteRoute } from "./routes.ts";
import { withRetryAfter } from "./errors.ts";
import type { Answer, Writes } from "./service.ts";
import { idempotencyKeyOf, requestHashOf, type SignedVariables, signedByExchange } from "./signed.ts";

/** What the HTTP layer asks of the writes (in this thread, or on a thread of their own). */
export type WriteOperations = Pick<Writes, "spawn" | "vote" | "propose">;

/** The writes as the HTTP layer reaches them: each call throws 503 while they cannot serve. */
export interface WritesRuntime {
  service(): WriteOperations;
  exchange(): ExchangeClient;
}

export interface WritesApiOptions {
  readonly runtime: WritesRuntime;
  readonly guard: AuthFailureGuard;
  readonly urlOf: (c: Context) => string;
}

/** A server without the writes' settings (the read API's tests, a read-only deployment). */
export const writesNotConfigured: WritesRuntime = {
  service: () => {
    throw new ApiError(503, "UNAVAILABLE", "signed writes are not configured on this server");
  },
  exchange: () => {
    throw new ApiError(503, "UNAVAILABLE", "signed writes are not configured on this server");
  },
};

/** The write bodies are small: a name, a symbol, metadata of at most ~1 KB, a comment. */
const MAX_BODY_BYTES = 16 * 1024;

const serve = createRouteServer();

/** POST /api/launchpad/spawn, /api/agents/workers/{tokenId}/vote and .../proposals; mounted at /api. */
export function writesApi({ runtime, guard, urlOf }: WritesApiOptions) {
  const app = new OpenAPIHono<{ Variables: SignedVariables }>();
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, "PAYLOAD_TOO_LARGE", `the body must be at most ${MAX_BODY_BYTES} bytes`);
    },
  });
  // The service first: the writes answer 503 until the relayer is ready, then 401 to an unsigned call.
  const signed = signedByExchange({
    exchange: () => {
      runtime.service();
      return runtime.exchange();
    },
    guard,
    urlOf,
  });
  const verified: typeof signed = (c, next) => retryable(() => signed(c, next));
  app.post("/launchpad/spawn", limit, verified);
  app.post("/agents/workers/:tokenId/vote", limit, verified);
  app.post("/agents/workers/:tokenId/proposals", limit, verified);

  const requestOf = <B>(c: Context<{ Variables: SignedVariables }>, body: B) => ({
    caller: c.get("caller"),
    body,
    idempotencyKey: idempotencyKeyOf(c),
    requestHash: requestHashOf(c, c.get("rawBody")),
  });
  serve(app, "/api", spawnRoute, async ({ body, c }) =>
    answer(c, await retryable(() => runtime.service().spawn(requestOf(c, body)))),
  );
  serve(app, "/api", voteRoute, async ({ params, body, c }) =>
    answer(c, await retryable(() => runtime.service().vote({ ...requestOf(c, body), tokenRef: params.tokenId }))),
  );
  serve(app, "/api", proposeRoute, async ({ params, body, c }) =>
    answer(c, await retryable(() => runtime.service().propose({ ...requestOf(c, body), tokenRef: params.tokenId }))),
  );
  return app;
}

/** `work`; a 503 or 504 it throws says when to retry (Retry-After), whichever layer made it. */
async function retryable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw withRetryAfter(error);
  }
}

function answer(c: Context, { status, body }: Answer) {
  return c.json(body as object, status as ContentfulStatusCode);
}
