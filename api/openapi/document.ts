import { z } from "zod";
import type { RouteSpec } from "../shared/route.ts";

/**
 * The OpenAPI 3.1 document of the ecosystem API, generated from the route specs: the zod
 * schemas that validate requests and type answers are the ones documented here.
 */

export interface DocumentInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const errorRef = { $ref: "#/components/schemas/Error" };
const rateLimitHeaders = {
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
};

function parametersOf(route: RouteSpec) {
  const parameters: JsonSchema[] = [];
  const add = (where: "path" | "query", shape: Record<string, z.ZodType>) => {
    for (const [name, field] of Object.entries(shape)) {
      const { description, ...schema } = jsonSchemaOf(field);
      parameters.push({
        name,
        in: where,
        required: where === "path" || !field.safeParse(undefined).success,
        ...(description !== undefined ? { description } : {}),
        schema,
      });
    }
  };
  if (route.params) add("path", route.params.shape as Record<string, z.ZodType>);
  if (route.query) add("query", route.query.shape as Record<string, z.ZodType>);
  return parameters;
}

function operationOf(route: RouteSpec) {
  const takesInput = Object.keys(route.query?.shape ?? {}).length + Object.keys(route.params?.shape ?? {}).length > 0;
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    operationId: operationIdOf(route.path),
    parameters: parametersOf(route),
    responses: {
      "200": {
        description: "OK",
        headers: rateLimitHeaders,
        content: { "application/json": { schema: jsonSchemaOf(route.response) } },
      },
      ...(takesInput ? { "400": { $ref: "#/components/responses/InvalidParam" } } : {}),
      ...(route.notFound ? { "404": { $ref: "#/components/responses/NotFound" } } : {}),
      "429": { $ref: "#/components/responses/RateLimited" },
      "500": { $ref: "#/components/responses/Internal" },
    },
  };
}

/** /api/agents/workers/{tokenId} -> getAgentsWorkersByTokenId */
function operationIdOf(path: string) {
  const words = path
    .split("/")
    .filter((part) => part && part !== "api")
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      const word = param ? `by-${param[1]}` : part;
      return word.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
    });
  return `get${words.join("")}`;
}

const errorResponse = (description: string, code: string, example: string, headers?: JsonSchema) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: errorRef, example: { code, message: example } } },
});

export function openApiDocument(routes: readonly RouteSpec[], info: DocumentInfo) {
  const paths: Record<string, { get: ReturnType<typeof operationOf> }> = {};
  for (const route of routes) paths[route.path] = { get: operationOf(route) };
  return {
    openapi: "3.1.0",
    info,
    paths,
    components: {
      schemas: {
        Error: {
          type: "object",
          properties: {
            code: { type: "string", enum: ["INVALID_PARAM", "NOT_FOUND", "RATE_LIMITED", "INTERNAL"] },
            message: { type: "string" },
          },
          required: ["code", "message"],
        },
      },
      headers: {
        "RateLimit-Limit": { description: "Requests allowed per minute", schema: { type: "integer" } },
        "RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
        "RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
        "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
      },
      responses: {
        InvalidParam: errorResponse(
          "A parameter is invalid; the message names it",
          "INVALID_PARAM",
          "pageSize: must be an integer from 1 to 100",
          rateLimitHeaders,
        ),
        NotFound: errorResponse(
          "Unknown token or worker",
          "NOT_FOUND",
          "No agent token 0x0000000000000000000000000000000000000001",
          rateLimitHeaders,
        ),
        RateLimited: errorResponse(
          "Too many requests from this client",
          "RATE_LIMITED",
          "Too many requests; retry in 42 s",
          {
            "Retry-After": { $ref: "#/components/headers/Retry-After" },
            ...rateLimitHeaders,
          },
        ),
        Internal: errorResponse("Unexpected server error (no details are given)", "INTERNAL", "Internal error"),
      },
    },
  };
}
