import type { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import {
  ApiError,
  type ErrorMappingOptions,
  parseInput,
  type RateLimiter,
  type RouteSpec,
  rateLimited,
  type ServeRoute,
} from "../../lib/http/index.ts";

/** A read's parsed input: what its REST route's query and path schemas make of the request. */
export interface ReadInput<Q extends z.ZodObject, P extends z.ZodObject> {
  readonly query: z.output<Q>;
  readonly params: z.output<P>;
}

/** A read's answer as a value, before it is JSON: a thrown ApiError is its refusal, as over REST. */
export type ReadHandler<Q extends z.ZodObject, P extends z.ZodObject> = (input: ReadInput<Q, P>) => Promise<object>;

/** A read's answer in process: its value, or its refusal as REST's `{code, message}`. */
export type LocalAnswer = { ok: true; body: object } | { ok: false; error: { code: string; message: string } };

export interface LocalReadOptions {
  /** The API's per-client quota of /api/*, which a read in process spends as a REST call does. */
  limiter: RateLimiter;
  /** The client's key (clientIp's), as the quota counts it. */
  ip: string;
  log?: ErrorMappingOptions["log"];
}

interface Entry {
  pattern: RegExp;
  names: string[];
  spec: RouteSpec;
  read: ReadHandler<z.ZodObject, z.ZodObject>;
}

const EMPTY = {};

/** `/api/x/{id}/y` as an anchored pattern capturing each parameter (one path segment each). */
function patternOf(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{\w+\})/)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      names.push(param[1]!);
      return "([^/]+)";
    })
    .join("");
  return { pattern: new RegExp(`^${source}$`), names };
}

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The API's reads, each one function that its REST route serves as JSON and that /mcp's tools
 * call in process (no Request, middleware or JSON text between them): one implementation, the
 * same answer. Input goes through the route's own schemas, so a refusal is the REST one.
 */
export function createReads() {
  const entries: Entry[] = [];

  /** The read at `path` with its input parsed as its route parses it, or undefined. */
  const find = (path: string, query: Readonly<Record<string, string>>) => {
    for (const { pattern, names, spec, read } of entries) {
      const match = pattern.exec(path);
      if (!match) continue;
      return () => {
        const raw: Record<string, string> = {};
        names.forEach((name, i) => {
          raw[name] = decoded(match[i + 1]!);
        });
        return read({
          query: spec.query ? parseInput(spec.query, query) : EMPTY,
          params: spec.params ? parseInput(spec.params, raw) : EMPTY,
        });
      };
    }
    return undefined;
  };

  return {
    /** Serves `read` as the REST route `spec` on `app` (mounted at `base`) and keeps it for local calls. */
    serve<Q extends z.ZodObject, P extends z.ZodObject>(
      serveRoute: ServeRoute,
      app: OpenAPIHono,
      base: string,
      spec: RouteSpec<Q, P>,
      read: ReadHandler<Q, P>,
    ) {
      serveRoute(app, base, spec, async ({ query, params, c }) => c.json(await read({ query, params })));
      entries.push({ ...patternOf(spec.path), spec, read: read as unknown as Entry["read"] });
    },
    /**
     * The reads of one client in process, as REST would answer them: the client's quota first,
     * then the read's own refusals; an unexpected error is logged and answers INTERNAL. Undefined
     * for a path that is none of the reads (the caller goes through HTTP).
     */
    localFor({ limiter, ip, log }: LocalReadOptions) {
      return (path: string, query: Readonly<Record<string, string>>): Promise<LocalAnswer> | undefined => {
        const run = find(path, query);
        if (run === undefined) return undefined;
        return (async (): Promise<LocalAnswer> => {
          try {
            const decision = limiter.hit(ip);
            if (!decision.allowed) throw rateLimited(decision.resetSeconds);
            return { ok: true, body: await run() };
          } catch (error) {
            if (error instanceof ApiError) return { ok: false, error: { code: error.code, message: error.message } };
            (log ?? console.error)(`unhandled error in the in-process read of ${path}`, error);
            return { ok: false, error: { code: "INTERNAL", message: "Internal error" } };
          }
        })();
      };
    },
  };
}

export type Reads = ReturnType<typeof createReads>;
