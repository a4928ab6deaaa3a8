// The shared HTTP kit of the platform's Hono servers (ecosystem API, exchange).
export { ApiError, errorHandler, invalidParam, notFound, rateLimited, sendError } from "./errors.ts";
export type { ErrorBody, ErrorMappingOptions } from "./errors.ts";
export { parseInput } from "./validate.ts";
export { clientIp } from "./client-ip.ts";
export type { ClientIpOptions } from "./client-ip.ts";
export { createRateLimiter, rateLimit } from "./rate-limit.ts";
export type { RateLimitDecision, RateLimiter, RateLimiterOptions } from "./rate-limit.ts";
export { requestId } from "./request-id.ts";
export { createAuthFailureGuard, subscriberOf } from "./auth-failures.ts";
export type { AuthFailureGuard, AuthFailureGuardOptions } from "./auth-failures.ts";
