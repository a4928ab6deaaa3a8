import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError, type AuthFailureGuard, createRouteServer, OpenAPIHono, sendError } from "../../../lib/http/index.ts";
import { UnavailableError } from "../../../lib/unavailable.ts";
import type { ExchangeClient } from "../exchange-client.ts";
import { SIGNED_WRITES, type WriteOutcome } from "../outcome.ts";
import { operatorRoute, proposeRoute, spawnRoute, voteRoute } from "./routes.ts";
import type { WriteOperations } from "../service.ts";
import { httpAnswerOf, httpErrorOf } from "./statuses.ts";
import { idempotencyKeyOf, requestHashOf, type SignedVariables, signedByExchange } from "./signed.ts";

/** The writes as the HTTP layer reaches them: each call throws UnavailableError while they cannot serve. */
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
    throw new UnavailableError(SIGNED_WRITES, "signed writes are not configured on this server");
  },
  exchange: () => {
    throw new UnavailableError(SIGNED_WRITES, "signed writes are not configured on this server");
  },
};

/** The write bodies are small: a name, a symbol, metadata of at most ~1 KB, a comment. */
const MAX_BODY_BYTES = 16 * 1024;

const serve = createRouteServer();

/**
 * POST /api/launchpad/spawn, /api/agents/workers/{tokenId}/vote, .../proposals and .../operator;
 * mounted at /api.
 * The HTTP adapter of the writes: a write's outcome becomes its answer here, and only here
 * (statuses.ts), as does an UnavailableError (503 with Retry-After).
 */
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
  app.post("/agents/workers/:tokenId/operator", limit, verified);

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
  serve(app, "/api", operatorRoute, async ({ params, body, c }) =>
    answer(
      c,
      await retryable(() => runtime.service().setOperator({ ...requestOf(c, body), tokenRef: params.tokenId })),
    ),
  );
  return app;
}

/** `work`; an UnavailableError it throws is 503, and every 503 or 504 says when to retry (Retry-After). */
async function retryable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw httpErrorOf(error);
  }
}

/** A write's outcome as its answer: 201 and the body, or the rejection's status and `{code, message}`. */
function answer(c: Context, outcome: WriteOutcome) {
  const answered = httpAnswerOf(outcome);
  return answered instanceof ApiError ? sendError(c, answered) : c.json(answered.body as object, answered.status);
}
