// The shared HTTP kit of the platform's Hono servers (ecosystem API, exchange).
export { ApiError, errorHandler, invalidParam, notFound, rateLimited, sendError } from "./errors.ts";
export type { ErrorBody, ErrorMappingOptions } from "./errors.ts";
export { parseInput } from "./validate.ts";
export { clientIp, clientIpOfRequest, ipKey } from "./client-ip.ts";
export type { ClientIpOptions } from "./client-ip.ts";
export { createRateLimiter, rateLimit } from "./rate-limit.ts";
export type { RateLimitDecision, RateLimiter, RateLimiterOptions } from "./rate-limit.ts";
export { requestId } from "./request-id.ts";
export { browserCors, EXPOSED_HEADERS, SIGNED_REQUEST_HEADERS } from "./cors.ts";
export type { BrowserCorsOptions } from "./cors.ts";
export { signedUrlOf } from "./signed-url.ts";
export { createAuthFailureGuard } from "./auth-failures.ts";
export type { AuthFailureGuard, AuthFailureGuardOptions } from "./auth-failures.ts";
export { createRouteServer, defineRoute, errorsOf, operationIdOf, parseBody, routeConfigOf } from "./route.ts";
export type {
  Access,
  ErrorDoc,
  Method,
  RouteHandler,
  RouteInput,
  RouteServerOptions,
  RouteSpec,
  ServeRoute,
} from "./route.ts";
export { openApiDocument } from "./openapi.ts";
export type { DocumentOptions } from "./openapi.ts";
export {
  ADDRESS_PROBLEM,
  addressParam,
  addressText,
  DECIMAL_TEXT,
  decimalTextParam,
  integerParam,
  isHexAddress,
  isoUtcParam,
  MAX_CANDLES,
  MAX_PAGE,
  MAX_PAGE_SIZE,
  pageNumberQuery,
  pageSizeQuery,
} from "./params.ts";
export type { IntegerProblems } from "./params.ts";
export { OpenAPIHono } from "@hono/zod-openapi";
