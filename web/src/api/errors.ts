/**
 * Every failed API call becomes an ApiError the pages show one way: the status, the API's
 * `{code, message}`, and for 429/503 how long to wait (Retry-After, seconds). A request that
 * never got an answer (the service is down, the network is gone) is status 0, UNREACHABLE.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfter: number | null;

  constructor(status: number, code: string, message: string, retryAfter: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

export function retryAfterOf(response: Response): number | null {
  const header = response.headers.get("Retry-After");
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
}

/** The ApiError of a non-2xx response whose body may be the APIs' `{code, message}`. */
export function apiErrorOf(response: Response, body: unknown): ApiError {
  const fields = (typeof body === "object" && body !== null ? body : {}) as { code?: unknown; message?: unknown };
  const code = typeof fields.code === "string" ? fields.code : `HTTP_${response.status}`;
  const message = typeof fields.message === "string" ? fields.message : response.statusText || "Request failed";
  return new ApiError(response.status, code, message, retryAfterOf(response));
}

export function unreachable(service: string, cause: unknown): ApiError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(0, "UNREACHABLE", `${service} is not answering (${detail})`);
}

/** Retry rule for TanStack Query: never a 4xx other than 429; 429/503/unreachable a few times. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429) return false;
  return failureCount < 2;
}

/** Waits what Retry-After asked for, else exponential from 1 s. */
export function retryDelay(failureCount: number, error: unknown): number {
  if (error instanceof ApiError && error.retryAfter !== null) return error.retryAfter * 1000;
  return Math.min(1000 * 2 ** failureCount, 10_000);
}
