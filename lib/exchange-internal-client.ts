import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ApiError } from "./http/index.ts";
import { OrderedBatch } from "./ordered-batch.ts";

/**
 * The exchange's /internal/* routes as the other services call them (the ecosystem API's writes,
 * the WebSocket gateway's logins): who signed a request (the exchange owns users, API keys and
 * their secrets; no other process sees a secret), and plain calls with the service secret. Every
 * call has a deadline; an exchange that does not answer is a 503 with Retry-After, never a hang.
 *
 * Signature checks go through the batch route: an idle client sends a check at once, and the
 * checks made while its request is out share the next. A check waits at most for the request in
 * flight and then its own: two deadlines. A batch the exchange refuses as a whole fails every
 * check in it, so a request the exchange would refuse (a header past its limits) is refused here,
 * alone, before it can join one: one client's junk never fails another's check.
 *
 * What the exchange answers becomes, never a 500: a refusal of one item its own status and code
 * (401 for a signature); a refusal of the whole call (a wrong service secret, a body the route
 * does not take), a 5xx, a 429 or no answer a 503 UNAVAILABLE, since no client caused it.
 */

export interface Caller {
  readonly userId: string;
  readonly level: number;
  /** Linked chain address (lower-case), or null. */
  readonly address: `0x${string}` | null;
}

export interface SignedRequest {
  readonly method: string;
  /** The full URL the client signed. */
  readonly url: string;
  readonly body: string;
  readonly headers: { "API-PublicKey"?: string; "API-Signature"?: string; "API-Timestamp"?: string };
}

export interface ExchangeInternalOptions {
  readonly baseUrl: string;
  readonly serviceSecret: string;
  /** Most ms one request to the exchange may take. */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

/** One call's answer, as its single route would have given it. */
export interface CallAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Seconds a client is told to wait (Retry-After) when the exchange cannot serve. */
export const EXCHANGE_RETRY_AFTER_SECONDS = 2;

/**
 * The limits of the exchange's verify route (its verifyBody) and its signature rules: a public key
 * of at most 200 characters, 64 lowercase hex characters of signature, a timestamp of canonical
 * epoch-millisecond digits. Checked here as visible ASCII too: nothing else is a key.
 */
const PUBLIC_KEY = /^[\x21-\x7e]{1,200}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;
const TIMESTAMP = /^(0|[1-9][0-9]{0,15})$/;
const METHODS = new Set(["GET", "POST", "PUT", "DELETE", "PATCH"]);

/** Most bytes of a signed body the exchange's verify route takes. */
const MAX_SIGNED_BODY_BYTES = 1_000_000;

/**
 * Why the exchange would refuse these signing headers (the message a 401 gives), or undefined when
 * they are well formed. Absent headers are not judged here: the exchange names them.
 */
export function signingHeadersProblem(headers: SignedRequest["headers"]): string | undefined {
  const { "API-PublicKey": publicKey, "API-Signature": signature, "API-Timestamp": timestamp } = headers;
  if (publicKey !== undefined && !PUBLIC_KEY.test(publicKey))
    return "Malformed API-PublicKey: expected 1 to 200 visible ASCII characters";
  if (signature !== undefined && !SIGNATURE.test(signature))
    return "Malformed API-Signature: expected 64 lowercase hex characters";
  if (timestamp !== undefined && !TIMESTAMP.test(timestamp))
    return "Malformed API-Timestamp: expected integer epoch milliseconds";
  return undefined;
}

const callerSchema = z.object({
  userId: z.string(),
  level: z.number().int(),
  address: z
    .string()
    .nullable()
    .transform((a) => (a === null ? null : (a.toLowerCase() as `0x${string}`))),
});
const errorSchema = z.object({ code: z.string(), message: z.string() });

/**
 * Most requests in one verification batch (the exchange's VERIFY_BATCH_MAX), and the most bytes
 * of them: the exchange takes request bodies of at most 64 KiB; a larger request goes alone.
 */
const VERIFY_BATCH_MAX = 100;
const VERIFY_BATCH_BYTES = 48 * 1024;

/** A batch route's answer: one result per item, in order (`hold` or `caller` on success). */
const batchAnswer = z.object({
  results: z.array(
    z.object({
      status: z.number().int(),
      hold: z.unknown().optional(),
      caller: z.unknown().optional(),
      error: z.unknown().optional(),
    }),
  ),
});

export const exchangeUnavailable = (why: string) =>
  new ApiError(503, "UNAVAILABLE", `The exchange, which verifies signatures and holds fees, is unavailable: ${why}`, {
    "Retry-After": String(EXCHANGE_RETRY_AFTER_SECONDS),
  });

export class ExchangeInternalClient {
  private readonly options: ExchangeInternalOptions;
  private readonly fetch: typeof fetch;
  private readonly verifications: OrderedBatch<SignedRequest, CallAnswer>;

  constructor(options: ExchangeInternalOptions) {
    this.options = options;
    this.fetch = options.fetch ?? fetch;
    this.verifications = new OrderedBatch((requests) => this.sendVerifications(requests), VERIFY_BATCH_MAX, {
      // Bytes as sent: a body's characters can take up to 3 bytes each in UTF-8, and quotes or
      // control characters grow when escaped, so its length would undercount.
      weightOf: (request) => Buffer.byteLength(JSON.stringify(request)) + 20,
      max: VERIFY_BATCH_BYTES,
    });
  }

  /**
   * Who signed the request; 401 UNAUTHORIZED (the exchange's message) when nobody valid did,
   * without a round trip when the headers are malformed.
   */
  async verify(request: SignedRequest): Promise<Caller> {
    const problem = signingHeadersProblem(request.headers);
    if (problem !== undefined) throw new ApiError(401, "UNAUTHORIZED", problem);
    // Not the client's doing (the caller builds these), but refused alone all the same.
    if (!METHODS.has(request.method) || !URL.canParse(request.url) || request.body.length > MAX_SIGNED_BODY_BYTES)
      throw new ApiError(400, "INVALID_PARAM", "the request cannot be verified (method, URL or body size)");
    const { status, body } = await this.verifications.send(request);
    if (status === 200) {
      const caller = callerSchema.safeParse(body);
      if (!caller.success) throw exchangeUnavailable("it answered a signature check unreadably");
      return caller.data;
    }
    throw this.refusal(status, body);
  }

  /**
   * One request for the items gathered, each answered `{status, <field> | error}`, in order; a
   * failure of the request fails every item alike.
   */
  async sendBatch(
    path: string,
    what: string,
    payload: unknown,
    count: number,
    field: "hold" | "caller",
  ): Promise<PromiseSettledResult<CallAnswer>[]> {
    const { status, body } = await this.post(path, payload);
    if (status !== 200) throw this.callRefused(status, body);
    const answer = batchAnswer.safeParse(body);
    if (!answer.success || answer.data.results.length !== count)
      throw exchangeUnavailable(`it answered a batch of ${count} ${what} unreadably`);
    return answer.data.results.map((result) => ({
      status: "fulfilled",
      value: { status: result.status, body: result.error ?? result[field] },
    }));
  }

  /** POSTs `payload` with the service secret; 503 when the exchange is not reached in time. */
  async post(path: string, payload: unknown): Promise<CallAnswer> {
    let response: Response;
    let body: unknown;
    try {
      response = await this.fetch(new URL(path, this.options.baseUrl), {
        method: "POST",
        headers: { "content-type": "application/json", "X-Service-Secret": this.options.serviceSecret },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      // The body under the same deadline: an exchange that stops mid-answer is no answer.
      const text = await response.text();
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    } catch (error) {
      throw exchangeUnavailable((error as Error).name === "TimeoutError" ? "no answer in time" : "not reachable");
    }
    return { status: response.status, body };
  }

  /**
   * A refused item, as the API answers it: its own 4xx with its code (the exchange's message); a
   * 5xx or 429 (the exchange cannot do it now) 503.
   */
  refusal(status: number, body: unknown): ApiError {
    if (status >= 500 || status === 429 || status < 400) return exchangeUnavailable(`it answered ${status}`);
    const detail = errorSchema.safeParse(body);
    if (!detail.success) return exchangeUnavailable(`it answered ${status} unreadably`);
    return new ApiError(status as ContentfulStatusCode, detail.data.code, detail.data.message);
  }

  /**
   * The whole call refused: no client caused it (a wrong service secret, a call the route does not
   * take, an exchange away), so 503, with what the operator must know in the message.
   */
  private callRefused(status: number, body: unknown): ApiError {
    if (status >= 500 || status === 429) return exchangeUnavailable(`it answered ${status}`);
    const detail = errorSchema.safeParse(body);
    return exchangeUnavailable(
      `it refused an internal call (${status}${detail.success ? ` ${detail.data.code}` : ""}); the operator must check EXCHANGE_URL and EXCHANGE_SERVICE_SECRET`,
    );
  }

  /** In order: each signature is used up as it is checked. */
  private sendVerifications(requests: readonly SignedRequest[]) {
    return this.sendBatch(
      "/internal/verify-signature/batch",
      "signature checks",
      { requests },
      requests.length,
      "caller",
    );
  }
}
