import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Expected rejections are values: one error type with a stable code, turned into
 * `{ code, message }` by one onError mapping. Anything else is a bug and answers 500 INTERNAL
 * without internals, so a client never learns more than the code.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  /** Extra response headers (Retry-After on a 429). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: ContentfulStatusCode, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export interface ErrorBody {
  code: string;
  message: string;
}

export const invalidParam = (param: string, problem: string) =>
  new ApiError(400, "INVALID_PARAM", `${param}: ${problem}`);

export const notFound = (message: string) => new ApiError(404, "NOT_FOUND", message);

/** 429 with Retry-After; `message` says why when it is not simply the request rate. */
export const rateLimited = (
  retryAfterSeconds: number,
  message = `Too many requests; retry in ${retryAfterSeconds} s`,
) => new ApiError(429, "RATE_LIMITED", message, { "Retry-After": String(retryAfterSeconds) });

export interface ErrorMappingOptions {
  /** Where unexpected errors go; default console.error. */
  log?: (message: string, error: unknown) => void;
  /** Turns errors of third-party handlers that are the client's fault into ApiErrors. */
  classify?: (error: Error, c: Context) => ApiError | undefined;
}

/** The one onError of an app: ApiError as is, Hono's own 4xx as codes, the rest as 500. */
export function errorHandler(options: ErrorMappingOptions = {}): ErrorHandler {
  const log = options.log ?? ((message, error) => console.error(message, error));
  return (error, c) => {
    if (error instanceof ApiError) return sendError(c, error);
    const classified = options.classify?.(error, c);
    if (classified) return sendError(c, classified);
    // Hono raises these for malformed requests (bad JSON body, body too large): client errors.
    if (error instanceof HTTPException && error.status < 500) {
      return sendError(
        c,
        new ApiError(error.status as ContentfulStatusCode, codeOfStatus(error.status), error.message || "Bad request"),
      );
    }
    log(`unhandled error in ${c.req.method} ${c.req.path} (request ${requestIdOf(c) ?? "-"})`, error);
    return sendError(c, new ApiError(500, "INTERNAL", "Internal error"));
  };
}

/** Renders an ApiError; also usable outside onError (a notFound handler). */
export function sendError(c: Context, error: ApiError) {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const body: ErrorBody = { code: error.code, message: error.message };
  return c.json(body, error.status);
}

function codeOfStatus(status: number) {
  if (status === 404) return "NOT_FOUND";
  if (status === 401) return "UNAUTHORIZED";
  if (status === 413) return "PAYLOAD_TOO_LARGE";
  return "INVALID_PARAM";
}

function requestIdOf(c: Context): string | undefined {
  const id: unknown = c.get("requestId" as never);
  return typeof id === "string" ? id : undefined;
}
