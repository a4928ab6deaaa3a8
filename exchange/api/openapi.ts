import { z } from "zod";
import type { RouteDoc } from "./registry.ts";

// The OpenAPI 3.0 document of {base_url} and {aggregator_url} (SPEC.md: /swagger/v1/swagger.json),
// generated from the route declarations.

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "openapi-3.0", io, unrepresentable: "any" }) as Json;
  return rest;
}

function parameters(route: RouteDoc): Json[] {
  const list: Json[] = [];
  const add = (where: "path" | "query", shape: Record<string, z.ZodType>) => {
    for (const [name, field] of Object.entries(shape)) {
      const { description, ...schema } = schemaOf(field, "input");
      list.push({
        name,
        in: where,
        required: where === "path" || !field.safeParse(undefined).success,
        ...(description ? { description } : {}),
        schema,
      });
    }
  };
  if (route.params) add("path", route.params.shape as Record<string, z.ZodType>);
  if (route.query) add("query", route.query.shape as Record<string, z.ZodType>);
  if (route.access !== "public") {
    const required = route.access === "signed";
    list.push(
      {
        name: "API-PublicKey",
        in: "header",
        required,
        schema: { type: "string" },
        description: "Public key of the API key pair",
      },
      {
        name: "API-Signature",
        in: "header",
        required,
        schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
        description:
          "HMAC-SHA256 of publicKey + full request URL + body (+ API-Timestamp when sent), keyed with the private key, lowercase hex",
      },
      {
        name: "API-Timestamp",
        in: "header",
        required: false,
        schema: { type: "string", pattern: "^\\d{1,16}$" },
        description:
          "Epoch milliseconds; when sent it is appended to the signature text and must be within the server's window",
      },
    );
  }
  return list;
}

function operationId(route: RouteDoc): string {
  const words = route.path
    .split("/")
    .filter((part) => part && part !== "api")
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      const word = param ? `by-${param[1]}` : part;
      return word.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());
    });
  return `${route.method}${words.join("")}`;
}

const errorResponse = (description: string, codes: string[]) => ({
  description,
  content: {
    "application/json": { schema: { $ref: "#/components/schemas/Error" }, example: { code: codes[0], message: "…" } },
  },
});

function operation(route: RouteDoc): Json {
  const responses: Json = {
    [String(route.status ?? 200)]: {
      description: "OK",
      ...(route.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(route.headers).map(([name, text]) => [
                name,
                { description: text, schema: { type: "string" } },
              ]),
            ),
          }
        : {}),
      content: { "application/json": { schema: schemaOf(route.response, "output") } },
    },
  };
  const byStatus = new Map<number, ErrorList>();
  type ErrorList = { codes: string[]; whens: string[] };
  const errors = [...(route.errors ?? [])];
  if (route.query || route.params || route.body)
    errors.push({
      status: 400,
      code: "INVALID_PARAM",
      when: "a parameter is missing or invalid (the message names it)",
    });
  if (route.access === "signed")
    errors.push({
      status: 401,
      code: "UNAUTHORIZED",
      when: "missing, malformed or wrong signature, unknown key or stale API-Timestamp",
    });
  if (!route.unlimited)
    errors.push({ status: 429, code: "RATE_LIMITED", when: "too many requests (Retry-After says when to retry)" });
  if (!route.unlimited)
    errors.push({
      status: 503,
      code: "UNAVAILABLE",
      when: "the database is away or the commit queue is full (writes; reads that need the database)",
    });
  for (const error of errors) {
    const entry = byStatus.get(error.status) ?? { codes: [], whens: [] };
    if (!entry.codes.includes(error.code)) entry.codes.push(error.code);
    entry.whens.push(`${error.code}: ${error.when}`);
    byStatus.set(error.status, entry);
  }
  for (const [status, entry] of byStatus)
    responses[String(status)] = errorResponse(entry.whens.join("; "), entry.codes);
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    operationId: operationId(route),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(route.body, "input") } } } }
      : {}),
    responses,
  };
}

export function exchangeOpenApi(
  routes: readonly RouteDoc[],
  info: { title: string; version: string; description: string },
): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: "3.0.3",
    info,
    paths,
    components: {
      schemas: {
        Error: {
          type: "object",
          properties: { code: { type: "string", description: "Stable error code" }, message: { type: "string" } },
          required: ["code", "message"],
        },
      },
    },
  };
}
