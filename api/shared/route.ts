import type { Hono } from "hono";
import { z } from "zod";
import { parseInput } from "../../lib/http/index.ts";

/**
 * One GET endpoint described once: the same zod schemas validate the request, type the handler's
 * answer and generate /openapi.json, so the document cannot drift from the code.
 */
export interface RouteSpec<
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
> {
  /** Public path in OpenAPI form, e.g. /api/agents/workers/{tokenId}. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  query?: Q;
  params?: P;
  response: R;
  /** Answers 404 NOT_FOUND for an unknown resource. */
  notFound?: boolean;
}

export const defineRoute = <
  Q extends z.ZodObject = z.ZodObject<{}>,
  P extends z.ZodObject = z.ZodObject<{}>,
  R extends z.ZodType = z.ZodType,
>(
  spec: RouteSpec<Q, P, R>,
) => spec;

export interface RouteInput<Q extends z.ZodObject, P extends z.ZodObject> {
  query: z.output<Q>;
  params: z.output<P>;
}

export type RouteHandler<Q extends z.ZodObject, P extends z.ZodObject, R extends z.ZodType> = (
  input: RouteInput<Q, P>,
) => Promise<z.input<R>>;

const empty = z.object({});

/** Registers `spec` on a sub-app mounted at `base` (a prefix of spec.path). */
export function mountRoute<Q extends z.ZodObject, P extends z.ZodObject, R extends z.ZodType>(
  app: Hono,
  base: string,
  spec: RouteSpec<Q, P, R>,
  handler: RouteHandler<Q, P, R>,
) {
  if (!spec.path.startsWith(base)) throw new Error(`route ${spec.path} is not under ${base}`);
  const path = spec.path.slice(base.length).replace(/\{(\w+)\}/g, ":$1") || "/";
  app.get(path, async (c) => {
    const query = parseInput(spec.query ?? empty, c.req.query()) as z.output<Q>;
    const params = parseInput(spec.params ?? empty, c.req.param()) as z.output<P>;
    const body = await handler({ query, params });
    return c.json(body as object);
  });
}
