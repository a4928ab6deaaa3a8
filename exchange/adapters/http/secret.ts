import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../../lib/http/index.ts";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** Requires `header` to carry `secret` (the admin token, the service secret); 401 UNAUTHORIZED otherwise. */
export function requireSecret(header: string, secret: string, scheme?: "Bearer"): MiddlewareHandler {
  // Every internal call (three per relayed spawn) checks it: the secret's own digest is taken once.
  const expected = digest(secret);
  return async (c, next) => {
    let given = c.req.header(header) ?? "";
    if (scheme !== undefined) given = given.startsWith(`${scheme} `) ? given.slice(scheme.length + 1) : "";
    if (given === "" || !timingSafeEqual(digest(given), expected))
      throw new ApiError(401, "UNAUTHORIZED", `Missing or wrong ${header}`);
    await next();
  };
}
