import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { z } from "zod";
import { ApiError } from "./errors.ts";
import { parseInput } from "./validate.ts";

/**
 * One way to declare an endpoint of either API: the same zod schemas validate its path, query
 * and body, type its handler and document it in the API's OpenAPI document (openapi.ts), so the
 * document cannot drift from the code.
 */

/**
 * Who may call: anyone; a signed request (API-PublicKey, API-Signature); either (a signature
 * adds the caller's view); a signed request or a web session (its cookie, and its CSRF token on
 * writes); the operator's admin token; the platform's service secret.
 */
export type Access = "public" | "signed" | "public-or-signed" | "signed-or-session" | "admin" | "internal";

/** An expected rejection of the route, as documented: `{code, message}` with this status. */
export interface ErrorDoc {
  readonly status: number;
  readonly code: string;
  readonly when: string;
}

export type Method = "get" | "post" | "delete";

export interface RouteSpec<
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
> {
  readonly method: Method;
  /** The public path in OpenAPI form: /api/orders/{id}. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly access: Access;
  readonly query?: Q;
  readonly params?: P;
  /** A JSON object body; validated after the query and the path. */
  readonly body?: B;
  /**
   * The rejection of a body the schema refuses, when it is not the default 400 INVALID_PARAM
   * naming the first bad field (SPEC.md gives a spawn's bad symbol a code of its own).
   */
  readonly bodyProblem?: (error: z.ZodError) => ApiError;
  /** The success answer's shape, for the document (answers are built by the handler, not re-validated). */
  readonly response: z.ZodType;
  /**
   * The success answer's media type; JSON unless said. A server-sent event stream documents the
   * shape of one event as `response`.
   */
  readonly responseType?: "application/json" | "text/event-stream";
  /** Request headers the handler reads and validates itself (Last-Event-ID of a stream), for the document. */
  readonly requestHeaders?: z.ZodObject;
  /** Success status; 200 unless said. */
  readonly status?: number;
  /** Expected rejections beside the ones the access and the inputs imply (400, 401, 429). */
  readonly errors?: readonly ErrorDoc[];
  /** Outside the per-client rate limit (the healthcheck; admin and internal routes). */
  readonly unlimited?: boolean;
  /** Extra success headers worth documenting, name to meaning (Cache-Control of cached answers). */
  readonly headers?: Readonly<Record<string, string>>;
}

export const defineRoute = <
  // biome-ignore lint/complexity/noBannedTypes: {} is zod's own shape of z.object({}), a route with no query
  Q extends z.ZodObject = z.ZodObject<{}>,
  // biome-ignore lint/complexity/noBannedTypes: as above, a route with no path parameters
  P extends z.ZodObject = z.ZodObject<{}>,
  B extends z.ZodType = z.ZodUndefined,
>(
  spec: RouteSpec<Q, P, B>,
) => spec;

// biome-ignore lint/suspicious/noExplicitAny: Hono's own default Env; a sub-app's typed Variables (c.get("auth")) must fit it
export interface RouteInput<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType, E extends Env = any> {
  readonly query: z.output<Q>;
  readonly params: z.output<P>;
  readonly body: z.output<B>;
  readonly c: Context<E>;
}

// biome-ignore lint/suspicious/noExplicitAny: as RouteInput's
export type RouteHandler<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType, E extends Env = any> = (
  input: RouteInput<Q, P, B, E>,
) => Response | Promise<Response>;

export interface RouteServerOptions {
  /**
   * Parses a body's JSON text (default JSON.parse). The exchange passes its exact parser, which
   * keeps numbers as their source text.
   */
  readonly parseJson?: (text: string) => unknown;
  /** Rejections every rate-limited route of the API may answer (the exchange's 503 UNAVAILABLE). */
  readonly sharedErrors?: readonly ErrorDoc[];
}

/** Serves a declared route on `app`, mounted at `base` (a prefix of spec.path), and documents it there. */
export type ServeRoute = <Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType, E extends Env>(
  app: OpenAPIHono<E>,
  base: string,
  spec: RouteSpec<Q, P, B>,
  handler: RouteHandler<Q, P, B, E>,
) => void;

const empty = z.object({});

/**
 * The serve function of one API. Validation is the kit's own (parseInput, in the order query,
 * path, body) rather than @hono/zod-openapi's validators: those read a repeated query key as an
 * array, answer 415 to a body without a JSON Content-Type, and add two async middlewares to the
 * hot market-data path; the answers here stay what clients have always had.
 */
export function createRouteServer(options: RouteServerOptions = {}): ServeRoute {
  const parseJson = options.parseJson ?? JSON.parse;
  return (app, base, spec, handler) => {
    if (!spec.path.startsWith(base)) throw new Error(`route ${spec.path} is not under ${base}`);
    const local = spec.path.slice(base.length) || "/";
    app.openAPIRegistry.registerPath(routeConfigOf(spec, local, options.sharedErrors ?? []));
    const query = spec.query ?? empty;
    const params = spec.params ?? empty;
    const bodySchema = spec.body;
    app.on(spec.method.toUpperCase(), local.replace(/\{(\w+)\}/g, ":$1"), async (c) => {
      const input = {
        query: parseInput(query, c.req.query()),
        params: parseInput(params, c.req.param()),
        body:
          bodySchema === undefined ? undefined : parseBody(bodySchema, await rawBodyOf(c), parseJson, spec.bodyProblem),
        c,
      };
      return handler(input as never);
    });
  };
}

/** The bytes a signature covered when a signature middleware read them first, else the request's. */
async function rawBodyOf(c: Context): Promise<string> {
  return (c.get("rawBody" as never) as string | undefined) ?? (await c.req.text());
}

/** Parses a JSON object body, then validates it; 400 INVALID_PARAM "body: ..." otherwise. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  raw: string,
  parseJson: (text: string) => unknown = JSON.parse,
  problem?: (error: z.ZodError) => ApiError,
): z.output<S> {
  let value: unknown;
  try {
    value = parseJson(raw);
  } catch {
    throw new ApiError(400, "INVALID_PARAM", "body: must be a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ApiError(400, "INVALID_PARAM", "body: must be a JSON object");
  if (problem === undefined) return parseInput(schema, value, "body");
  const result = schema.safeParse(value);
  if (!result.success) throw problem(result.error);
  return result.data;
}

const errorSchemaRef = { $ref: "#/components/schemas/Error" };
const rateLimitHeaderRefs = {
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
};
const retryAfterRef = { "Retry-After": { $ref: "#/components/headers/Retry-After" } };

const SECURITY: Record<Access, RouteConfig["security"]> = {
  public: undefined,
  signed: [{ ApiKey: [], ApiSignature: [] }],
  "public-or-signed": [{}, { ApiKey: [], ApiSignature: [] }],
  "signed-or-session": [{ ApiKey: [], ApiSignature: [] }, { WebSession: [] }],
  admin: [{ AdminToken: [] }],
  internal: [{ ServiceSecret: [] }],
};

/** What a web session's write sends beside its cookie (instead of the signing headers). */
const sessionHeaders = z.object({
  "X-CSRF-Token": z.string().optional().meta({
    description:
      "A web session's CSRF token (from signing in); required on a session's writes, unused with a signature",
  }),
});

/** The header parameters of a signed request, documented on the operation (SPEC.md names them). */
function signingHeaders(required: boolean) {
  return z.object({
    "API-PublicKey": (required ? z.string() : z.string().optional()).meta({
      description: "Public key of the API key pair",
    }),
    "API-Signature": (required ? z.string() : z.string().optional()).meta({
      description:
        "HMAC-SHA256 of publicKey + full request URL + body (+ API-Timestamp when sent), keyed with the private key, lowercase hex",
      pattern: "^[0-9a-f]{64}$",
    }),
    "API-Timestamp": z.string().optional().meta({
      description:
        "Epoch milliseconds; when sent it is appended to the signature text and must be within the server's window",
      pattern: "^\\d{1,16}$",
    }),
  });
}

/** Every rejection the route can answer: its own, then those its inputs, access and rate limit imply. */
export function errorsOf(spec: RouteSpec, sharedErrors: readonly ErrorDoc[] = []): ErrorDoc[] {
  const errors = [...(spec.errors ?? [])];
  const takesInput =
    Object.keys(spec.query?.shape ?? {}).length + Object.keys(spec.params?.shape ?? {}).length > 0 ||
    spec.body !== undefined;
  if (takesInput)
    errors.push({
      status: 400,
      code: "INVALID_PARAM",
      when: "a parameter is missing or invalid (the message names it)",
    });
  if (spec.access === "signed")
    errors.push({
      status: 401,
      code: "UNAUTHORIZED",
      when: "missing, malformed or wrong signature, unknown key or stale API-Timestamp",
    });
  if (spec.access === "public-or-signed")
    errors.push({ status: 401, code: "UNAUTHORIZED", when: "a signature is sent and it is wrong" });
  if (spec.access === "signed-or-session") {
    errors.push({
      status: 401,
      code: "UNAUTHORIZED",
      when: "no API-PublicKey and no live web session, or a missing, malformed or wrong signature, unknown key or stale API-Timestamp",
    });
    errors.push({
      status: 403,
      code: "FORBIDDEN",
      when: "a web-session write without the session's X-CSRF-Token, or from an Origin that is not the web app's",
    });
  }
  if (spec.access === "admin" || spec.access === "internal") {
    const credential = spec.access === "admin" ? "Authorization: Bearer <admin token>" : "X-Service-Secret";
    errors.push({ status: 401, code: "UNAUTHORIZED", when: `missing or wrong ${credential}` });
    errors.push({ status: 429, code: "RATE_LIMITED", when: "too many failed authentications from this client" });
  }
  if (!spec.unlimited) {
    errors.push({ status: 429, code: "RATE_LIMITED", when: "too many requests (Retry-After says when to retry)" });
    errors.push(...sharedErrors);
  }
  errors.push({ status: 500, code: "INTERNAL", when: "an unexpected server error (no details are given)" });
  return errors;
}

/** The zod-to-openapi declaration of a route at `path` (relative to its sub-app). */
export function routeConfigOf(spec: RouteSpec, path: string, sharedErrors: readonly ErrorDoc[] = []): RouteConfig {
  const limited = !spec.unlimited;
  const rateHeaders = limited ? rateLimitHeaderRefs : undefined;
  const successHeaders = {
    ...rateHeaders,
    ...Object.fromEntries(
      Object.entries(spec.headers ?? {}).map(([name, text]) => [
        name,
        { description: text, schema: { type: "string" } },
      ]),
    ),
  };
  const responses: RouteConfig["responses"] = {
    [spec.status ?? 200]: {
      description: "OK",
      ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders as never } : {}),
      content: { [spec.responseType ?? "application/json"]: { schema: spec.response } },
    },
  };
  const byStatus = new Map<number, ErrorDoc[]>();
  for (const error of errorsOf(spec, sharedErrors))
    byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error]);
  for (const [status, errors] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = { ...(status === 429 ? retryAfterRef : {}), ...(limited ? rateHeaders : {}) };
    responses[status] = {
      description: errors.map((error) => `${error.code}: ${error.when}`).join("; "),
      ...(Object.keys(headers).length > 0 ? { headers: headers as never } : {}),
      content: {
        "application/json": { schema: errorSchemaRef, example: { code: errors[0]!.code, message: "…" } },
      },
    };
  }
  const signed = spec.access === "signed" || spec.access === "public-or-signed" || spec.access === "signed-or-session";
  const headers = signed
    ? signingHeaders(spec.access === "signed")
        .extend(spec.access === "signed-or-session" ? sessionHeaders.shape : {})
        .extend(spec.requestHeaders?.shape ?? {})
    : spec.requestHeaders;
  return {
    method: spec.method,
    path,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    operationId: operationIdOf(spec.method, spec.path),
    ...(SECURITY[spec.access] ? { security: SECURITY[spec.access] } : {}),
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(headers ? { headers } : {}),
      ...(spec.body ? { body: { required: true, content: { "application/json": { schema: spec.body } } } } : {}),
    },
    responses,
  };
}

/** get /api/agents/workers/{tokenId} -> getAgentsWorkersByTokenId */
export function operationIdOf(method: Method, path: string): string {
  const words = path
    .split("/")
    .filter((part) => part && part !== "api")
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      const word = param ? `by-${param[1]}` : part;
      return word.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());
    });
  return `${method}${words.join("")}`;
}
