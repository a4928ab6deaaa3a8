import { z } from "zod";
import { createRouteServer, OpenAPIHono } from "../../../lib/http/index.ts";
import { signatureRejection, verifySignedRequest, type ReplayGuard } from "../auth/index.ts";
import type { Exchange } from "../../application/index.ts";

// The ecosystem API verifies its signed requests (vote, spawn) here instead of holding copies of
// users' secrets: it forwards what the client sent and gets back who signed it.

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
    async ({ body: request, c }) => {
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
      return c.json({ userId: user.id, level: user.level, address: user.address });
    },
  );
  return app;
}
