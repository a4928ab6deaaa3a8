import type { z } from "zod";
import type { OpenAPIHono, RouteHandler, RouteSpec } from "../../../lib/http/index.ts";
import { serve } from "./serve.ts";

// SPEC.md Versioning 2: "A planned alias /v1/spot/market/* will map to the current routes." Each
// public market-data route is declared once and served twice, at /api/<name> and at
// /v1/spot/market/<name>, with the same schemas and handler: the same parameters, answers and
// errors, and (app.ts) the same per-IP quota. Both are in the OpenAPI document.

export const API_BASE = "/api";
export const ALIAS_BASE = "/v1/spot/market";
export const ALIAS_TAG = "Market data (/v1/spot/market aliases)";

/** The alias's declaration: the path moved under ALIAS_BASE, documented as an alias of the original. */
export function aliasOf<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType>(
  spec: RouteSpec<Q, P, B>,
): RouteSpec<Q, P, B> {
  if (!spec.path.startsWith(`${API_BASE}/`)) throw new Error(`route ${spec.path} is not under ${API_BASE}`);
  const original = `${spec.method.toUpperCase()} ${spec.path}`;
  const signing =
    spec.access === "public-or-signed"
      ? " A signed call signs the URL it sends, this alias's: a signature made for the /api path does not verify here."
      : "";
  return {
    ...spec,
    path: ALIAS_BASE + spec.path.slice(API_BASE.length),
    tag: ALIAS_TAG,
    summary: `Alias of ${original}: ${spec.summary}`,
    description: `Alias of ${original}: the same parameters, answers and errors, and the same rate-limit quota.${signing}${spec.description ? ` ${spec.description}` : ""}`,
  };
}

/** Serves each declared /api route on `api` (mounted at API_BASE) and its alias on `alias` (mounted at ALIAS_BASE). */
export function aliasedServer(api: OpenAPIHono, alias: OpenAPIHono) {
  return <Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType>(
    spec: RouteSpec<Q, P, B>,
    handler: RouteHandler<Q, P, B>,
  ): void => {
    serve(api, API_BASE, spec, handler);
    serve(alias, ALIAS_BASE, aliasOf(spec), handler);
  };
}
