import type { Context, Hono } from "hono";
import { z } from "zod";
import { parseInput } from "../../lib/http/index.ts";
import { parseBody } from "./body.ts";

// Every endpoint of the exchange is declared once: the same zod schemas validate its query,
// path and body and generate /swagger/v1/swagger.json, so the document cannot drift from the code.

export type Access = "public" | "signed" | "public-or-signed";

export interface ErrorDoc {
  readonly status: number;
  readonly code: string;
  readonly when: string;
}

export interface RouteDoc<
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
> {
  readonly method: "get" | "post" | "delete";
  /** OpenAPI form: /api/orders/{id}. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly access: Access;
  readonly query?: Q;
  readonly params?: P;
  readonly body?: B;
  /** The answer's shape, for the document (answers are built by views, not re-validated). */
  readonly response: z.ZodType;
  readonly status?: number;
  readonly errors?: readonly ErrorDoc[];
  /** Not rate-limited (the healthcheck). */
  readonly unlimited?: boolean;
  /** Extra response headers worth documenting (Cache-Control of cached endpoints). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteInput<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType> {
  readonly query: z.output<Q>;
  readonly params: z.output<P>;
  readonly body: z.output<B>;
  readonly c: Context;
}

const empty = z.object({});

export class RouteRegistry {
  readonly routes: RouteDoc[] = [];

  /** Declares `doc` and serves it on `app` (mounted at `base`, a prefix of doc.path). */
  route<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType>(
    app: Hono<any>,
    base: string,
    doc: RouteDoc<Q, P, B>,
    handler: (input: RouteInput<Q, P, B>) => Response | Promise<Response>,
  ): void {
    if (!doc.path.startsWith(base)) throw new Error(`route ${doc.path} is not under ${base}`);
    this.routes.push(doc as unknown as RouteDoc);
    const path = doc.path.slice(base.length).replace(/\{(\w+)\}/g, ":$1") || "/";
    app.on(doc.method.toUpperCase(), path, async (c) => {
      const query = parseInput(doc.query ?? empty, c.req.query()) as z.output<Q>;
      const params = parseInput(doc.params ?? empty, c.req.param()) as z.output<P>;
      let body = undefined as z.output<B>;
      if (doc.body !== undefined) {
        // Signed routes parse the bytes the signature covered; the middleware read them once.
        const raw = (c.get("rawBody" as never) as string | undefined) ?? (await c.req.text());
        body = parseBody(doc.body, raw);
      }
      return handler({ query, params, body, c });
    });
  }
}
