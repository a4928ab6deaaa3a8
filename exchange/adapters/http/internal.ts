import { z } from "zod";
import { ApiError, createRouteServer, OpenAPIHono } from "../../../lib/http/index.ts";
import { signatureRejection, verifySignedRequest, type ReplayGuard } from "../auth/index.ts";
import type { Exchange } from "../../application/index.ts";
import { knownErrorAnswer } from "./domain-errors.ts";
import { decimalText, storedText } from "./schemas.ts";
import { serve as serveExact } from "./serve.ts";
import { feeHoldView } from "./views.ts";

// The ecosystem API verifies its signed requests (vote, spawn) here instead of holding copies of
// users' secrets: it forwards what the client sent and gets back who signed it. It also pays the
// on-chain fee of a spawn from the user's exchange balance through fee holds: hold before sending
// the transaction, then settle when it is mined or release when it fails (application/fee-holds.ts).

const verifyBody = z.strictObject({
  method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH"]),
  url: z.url(),
  body: z.string().max(1_000_000).default(""),
  headers: z.object({
    "API-PublicKey": z.string().max(200).optional(),
    "API-Signature": z.string().max(200).optional(),
    "API-Timestamp": z.string().max(20).optional(),
  }),
});

/** The forwarded request is text fields only: plain JSON.parse, as the ecosystem API sent it. */
const serve = createRouteServer();

const verifiedCaller = z.object({
  userId: z.uuid(),
  level: z.number().int(),
  address: z.string().nullable().meta({ description: "Linked chain address, lower-case; null when none" }),
});

const uuid = (what: string) => z.uuid(`must be ${what} (UUID)`);
const holdParam = z.object({ holdId: uuid("a fee hold id") });

const feeHoldBody = z.strictObject({
  holdId: uuid("a fee hold id").meta({ description: "The caller's id for the hold; a repeat is idempotent" }),
  userId: uuid("a user id"),
  currency: z
    .string()
    .regex(/^[A-Z0-9]{1,16}$/, "must be a currency code")
    .meta({ description: "The native currency the fee is paid in (demo: ETH)" }),
  amount: decimalText.meta({
    type: "string",
    description:
      "The fee, decimal text in the currency (a JSON number is accepted too); digits beyond its decimals round up",
  }),
  memo: storedText(200).optional().meta({ description: "What the fee is for; stored, not shown" }),
});

const settleBody = z.strictObject({
  reference: storedText(200)
    .optional()
    .meta({ description: "What settled it, e.g. the transaction hash; kept on the hold" }),
});

/** Most requests checked in one batch (the ecosystem API's client sends at most this many). */
const VERIFY_BATCH_MAX = 100;

/** Most calls in one batch: bounds the request's size and the commit it adds to. */
const FEE_HOLD_BATCH_MAX = 100;

/** One item's failure in a batch's answer, as its single route would have answered it. */
const itemError = z.object({ code: z.string(), message: z.string() });

const batchCall = z.discriminatedUnion("action", [
  feeHoldBody.extend({ action: z.literal("hold") }),
  settleBody.extend({ action: z.literal("settle"), holdId: uuid("a fee hold id") }),
  z.strictObject({ action: z.literal("release"), holdId: uuid("a fee hold id") }),
]);

const batchBody = z.strictObject({
  calls: z
    .array(batchCall)
    .min(1)
    .max(FEE_HOLD_BATCH_MAX)
    .meta({ description: `1 to ${FEE_HOLD_BATCH_MAX} calls, each as the single-hold route's body plus its action` }),
});

const feeHoldSchema = z.object({
  holdId: z.uuid(),
  userId: z.uuid(),
  currency: z.string(),
  amount: z.string().meta({ description: "Decimal text in the currency, exact, without trailing zeros" }),
  status: z.enum(["held", "settled", "released"]),
  reference: z.string().nullable().meta({ description: "The settle's reference; null otherwise" }),
  createdAt: z.string().meta({ description: "ISO 8601 UTC" }),
  resolvedAt: z.string().nullable().meta({ description: "When it was settled or released; null while held" }),
});

const batchResult = z.object({
  status: z
    .number()
    .int()
    .meta({ description: "What the single-hold route would have answered: 200, 201, 4xx or 503" }),
  hold: feeHoldSchema.optional().meta({ description: "The hold, when status is 200 or 201" }),
  error: itemError.optional().meta({ description: "The error, as the single-hold route would have answered it" }),
});

const unavailable = {
  status: 503,
  code: "UNAVAILABLE",
  when: "the database is away or the commit queue is full; a retry with the same holdId is safe",
};
const unknownHold = { status: 404, code: "NOT_FOUND", when: "no fee hold has this id" };
const feeHolds = { tag: "Internal", access: "internal", unlimited: true } as const;

export function internalApi(
  exchange: Exchange,
  options: {
    timestampWindowMs: number;
    timestampMaxFutureMs?: number;
    requireTimestamp: boolean;
    now?: () => number;
    replay?: ReplayGuard;
  },
) {
  const app = new OpenAPIHono();
  /** The caller of a forwarded request, or the ApiError a signed route would have answered. */
  const verifyOne = async (request: z.infer<typeof verifyBody>) => {
    const verdict = await verifySignedRequest({
      method: request.method,
      url: request.url,
      body: request.body,
      headers: {
        publicKey: request.headers["API-PublicKey"],
        signature: request.headers["API-Signature"],
        timestamp: request.headers["API-Timestamp"],
      },
      resolveKey: (publicKey) => exchange.resolveKey(publicKey),
      now: options.now ?? Date.now,
      windowMs: options.timestampWindowMs,
      maxFutureMs: options.timestampMaxFutureMs,
      requireTimestamp: options.requireTimestamp,
      // The same cache as the exchange's own signed routes: a signature is used once, anywhere.
      replay: options.replay,
    });
    if (!verdict.ok) throw signatureRejection(verdict);
    const user = exchange.user(verdict.userId)!;
    return { userId: user.id, level: user.level, address: user.address };
  };
  serve(
    app,
    "/internal",
    {
      method: "post",
      path: "/internal/verify-signature",
      tag: "Internal",
      summary: "Who signed a request the ecosystem API received (401 UNAUTHORIZED when nobody valid did)",
      access: "internal",
      unlimited: true,
      body: verifyBody,
      response: verifiedCaller,
    },
    async ({ body: request, c }) => c.json(await verifyOne(request)),
  );

  serve(
    app,
    "/internal",
    {
      method: "post",
      path: "/internal/verify-signature/batch",
      tag: "Internal",
      summary: "Who signed each of several requests (the ecosystem API's checks made while one was out)",
      description:
        "Each item is what /internal/verify-signature takes, and is answered as that route would answer it, in order, in " +
        "`results`: 200 with the caller, or 401 UNAUTHORIZED (429 RATE_LIMITED) with the error. A signature used once is " +
        "used up, within a batch too. A batch that is not valid as a whole is 400 and nothing is checked.",
      access: "internal",
      unlimited: true,
      body: z.strictObject({ requests: z.array(verifyBody).min(1).max(VERIFY_BATCH_MAX) }),
      response: z.object({
        results: z.array(
          z.object({
            status: z.number().int(),
            caller: verifiedCaller.optional().meta({ description: "Who signed it, when status is 200" }),
            error: itemError.optional(),
          }),
        ),
      }),
    },
    async ({ body, c }) => {
      const results = [];
      // In order: the replay cache sees each signature as a one-at-a-time caller would send it.
      for (const request of body.requests)
        results.push(await itemAnswer(async () => ({ status: 200, caller: await verifyOne(request) })));
      return c.json({ results });
    },
  );

  // Fee holds: bodies parsed exactly (amounts as JSON numbers keep their digits).
  serveExact(
    app,
    "/internal",
    {
      ...feeHolds,
      method: "post",
      path: "/internal/fee-holds",
      summary: "Hold a fee from a user's available balance (shown as locked) before an on-chain action",
      description:
        "201 with the hold when created. A repeat of the holdId with the same userId, currency and amount (after rounding up) answers the " +
        "stored hold, whatever its status, with 200 and Idempotent-Replay: true, and holds nothing more; with other fields it is 409 HOLD_CONFLICT.",
      body: feeHoldBody,
      response: feeHoldSchema,
      status: 201,
      errors: [
        { status: 400, code: "UNKNOWN_CURRENCY", when: "currency is not a currency" },
        {
          status: 400,
          code: "INSUFFICIENT_BALANCE",
          when: "amount is more than the user's available balance (the message says both)",
        },
        { status: 404, code: "NOT_FOUND", when: "no user has this userId" },
        {
          status: 409,
          code: "HOLD_CONFLICT",
          when: "the holdId exists with another user, currency or amount, or was released before it was held",
        },
        unavailable,
      ],
    },
    async ({ body, c }) => {
      const { row, created } = await exchange.holdFee(holdArgsOf(body));
      if (!created) c.header("Idempotent-Replay", "true");
      return c.json(feeHoldView(exchange, row), created ? 201 : 200);
    },
  );

  serveExact(
    app,
    "/internal",
    {
      ...feeHolds,
      method: "post",
      path: "/internal/fee-holds/batch",
      summary:
        "Several hold, settle and release calls in one request (the ecosystem API's calls made while one was out)",
      description:
        "Each call is what its single-hold route takes, plus `action`; each is answered as that route would answer it, in order, in " +
        "`results`. Calls on different holds run together and share commits; calls on one hold run in the order given. A batch that " +
        "is not valid as a whole is 400 and nothing runs.",
      body: batchBody,
      response: z.object({ results: z.array(batchResult) }),
    },
    async ({ body, c }) => {
      const results = await Promise.all(
        body.calls.map((call) =>
          itemAnswer(async () => {
            if (call.action === "hold") {
              const { row, created } = await exchange.holdFee(holdArgsOf(call));
              return { status: created ? 201 : 200, hold: feeHoldView(exchange, row) };
            }
            const row =
              call.action === "settle"
                ? await exchange.settleFeeHold(call.holdId, call.reference ?? null)
                : await exchange.releaseFeeHold(call.holdId);
            return { status: 200, hold: feeHoldView(exchange, row) };
          }),
        ),
      );
      return c.json({ results });
    },
  );

  serveExact(
    app,
    "/internal",
    {
      ...feeHolds,
      method: "post",
      path: "/internal/fee-holds/{holdId}/settle",
      summary: "Settle a held fee: the action was mined, the fee is burned (leaves the exchange)",
      description:
        "The body is a JSON object, {} or {reference}. Settling a settled hold answers it as it is (its first reference kept).",
      params: holdParam,
      body: settleBody,
      response: feeHoldSchema,
      errors: [unknownHold, { status: 409, code: "HOLD_CONFLICT", when: "the hold was released" }, unavailable],
    },
    async ({ params, body, c }) =>
      c.json(feeHoldView(exchange, await exchange.settleFeeHold(params.holdId, body.reference ?? null))),
  );

  serveExact(
    app,
    "/internal",
    {
      ...feeHolds,
      method: "post",
      path: "/internal/fee-holds/{holdId}/release",
      summary: "Release a held fee back to available: the action failed",
      description:
        "No body is read. Releasing a released hold answers it as it is. Releasing an unknown holdId answers 404 and " +
        "refuses a hold with that id arriving later (409 HOLD_CONFLICT): a hold still on its way when its caller gave up never locks the fee.",
      params: holdParam,
      response: feeHoldSchema,
      errors: [unknownHold, { status: 409, code: "HOLD_CONFLICT", when: "the hold was settled" }, unavailable],
    },
    async ({ params, c }) => c.json(feeHoldView(exchange, await exchange.releaseFeeHold(params.holdId))),
  );

  serveExact(
    app,
    "/internal",
    {
      ...feeHolds,
      method: "get",
      path: "/internal/fee-holds/{holdId}",
      summary: "A fee hold as committed, whatever its status",
      params: holdParam,
      response: feeHoldSchema,
      errors: [unknownHold, unavailable],
    },
    async ({ params, c }) => c.json(feeHoldView(exchange, await exchange.feeHold(params.holdId))),
  );
  return app;
}

function holdArgsOf(body: z.infer<typeof feeHoldBody>) {
  return {
    holdId: body.holdId,
    userId: body.userId,
    currency: body.currency,
    amount: body.amount,
    memo: body.memo ?? null,
  };
}

/**
 * A batch item's answer: what `run` answers, or its expected failure as the item's single route
 * would answer it (the app's own classification). Anything else is a bug: the batch's 500.
 */
async function itemAnswer<A>(run: () => Promise<A>): Promise<A | { status: number; error: z.infer<typeof itemError> }> {
  try {
    return await run();
  } catch (error) {
    const answer = error instanceof ApiError ? error : knownErrorAnswer(error as Error);
    if (answer === undefined) throw error;
    return { status: answer.status, error: { code: answer.code, message: answer.message } };
  }
}
