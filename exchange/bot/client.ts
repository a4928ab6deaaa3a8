import { signRequest } from "../adapters/auth/index.ts";
import { JsonNumber, parseJsonExact } from "../core/money/json.ts";

// A minimal client of the exchange's HTTP API for the bot: signed calls with one key, public
// reads, errors as ApiCallError carrying the server's {code, message}.

export class ApiCallError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds from Retry-After (429 answers). */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, message: string, retryAfterSeconds?: number) {
    super(`${code}: ${message}`);
    this.name = "ApiCallError";
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface Key {
  readonly publicKey: string;
  readonly privateKey: string;
}

export interface ClientOptions {
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** Exact decimal text of a response number (parseJsonExact keeps JsonNumber), or of a string. */
export function decimalText(value: unknown): string {
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") return value;
  throw new TypeError(`expected a decimal, got ${JSON.stringify(value)}`);
}

export class ExchangeHttp {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  /** RateLimit-Limit of the last signed answer: the key's requests per minute. */
  signedLimit: number | undefined;
  private lastTimestamp = 0;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** A signed request; the answer parsed with exact decimals (JsonNumber). */
  async signed<T = unknown>(key: Key, method: string, path: string, payload?: unknown): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const body = payload === undefined ? "" : JSON.stringify(payload);
    const headers: Record<string, string> = {
      ...signRequest({
        publicKey: key.publicKey,
        privateKey: key.privateKey,
        method,
        url,
        body,
        timestamp: this.nextTimestamp(),
      }),
      ...(body === "" ? {} : { "content-type": "application/json" }),
    };
    const response = await this.fetchImpl(url, {
      method,
      headers,
      ...(body === "" ? {} : { body }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const limit = Number(response.headers.get("RateLimit-Limit"));
    if (Number.isSafeInteger(limit) && limit > 0) this.signedLimit = limit;
    return this.answer<T>(response);
  }

  /**
   * Strictly increasing: the exchange accepts a timestamped signature once, so two identical
   * requests in the same millisecond (two balance reads) must not carry the same signature.
   */
  private nextTimestamp(): number {
    this.lastTimestamp = Math.max(Date.now(), this.lastTimestamp + 1);
    return this.lastTimestamp;
  }

  /** An anonymous GET. */
  async get<T = unknown>(path: string): Promise<T> {
    const response = await this.fetchImpl(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    return this.answer<T>(response);
  }

  private async answer<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : parseJsonExact(text);
    } catch {
      body = text;
    }
    if (response.ok) return body as T;
    const error = body as { code?: unknown; message?: unknown } | undefined;
    const retryAfter = Number(response.headers.get("Retry-After"));
    throw new ApiCallError(
      response.status,
      typeof error?.code === "string" ? error.code : `HTTP_${response.status}`,
      typeof error?.message === "string" ? error.message : text.slice(0, 200) || response.statusText,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
}
