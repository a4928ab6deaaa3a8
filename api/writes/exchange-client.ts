import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Address } from "viem";
import { z } from "zod";
import { ApiError } from "../../lib/http/index.ts";
import { OrderedBatch } from "../../lib/ordered-batch.ts";
import { writeError } from "./errors.ts";

/**
 * The exchange as the ecosystem API uses it: who signed a request (the exchange owns users, API
 * keys and their secrets; this process never sees a secret), and the fee holds that charge a
 * user's exchange balance for an on-chain action. Every call has a deadline; an exchange that does
 * not answer is a 503, never a hang.
 *
 * Signature checks and fee-hold calls go through the exchange's batch routes: an idle client
 * sends a call at once, and the calls of a kind made while its request is out share the next. Under load
 * a spawn's hold and the settles of the spawns mined meanwhile then cost one request and one
 * commit instead of one each (bench:writes, PGlite: about 1.5 ms of the exchange's CPU per commit
 * of one hold, 0.15 ms per hold in a commit of ten). A call waits at most for the request in
 * flight and then its own: two deadlines.
 */

export interface Caller {
  readonly userId: string;
  readonly level: number;
  /** Linked chain address (lower-case), or null. */
  readonly address: Address | null;
}

export interface SignedRequest {
  readonly method: string;
  /** The full URL the client signed. */
  readonly url: string;
  readonly body: string;
  readonly headers: { "API-PublicKey"?: string; "API-Signature"?: string; "API-Timestamp"?: string };
}

export interface FeeHold {
  readonly holdId: string;
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency. */
  readonly amount: string;
  readonly memo?: string;
}

export interface ExchangeClientOptions {
  readonly baseUrl: string;
  readonly serviceSecret: string;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

const callerSchema = z.object({
  userId: z.string(),
  level: z.number().int(),
  address: z
    .string()
    .nullable()
    .transform((a) => (a === null ? null : (a.toLowerCase() as Address))),
});
const errorSchema = z.object({ code: z.string(), message: z.string() });

/**
 * Most requests in one verification batch (the exchange's VERIFY_BATCH_MAX), and the most bytes
 * of them: the exchange takes request bodies of at most 64 KiB; a larger request goes alone.
 */
const VERIFY_BATCH_MAX = 100;
const VERIFY_BATCH_BYTES = 48 * 1024;

/** Most calls in one batch request (the exchange's FEE_HOLD_BATCH_MAX). */
const FEE_HOLD_BATCH_MAX = 100;

type FeeHoldCall =
  | ({ readonly action: "hold" } & FeeHold)
  | { readonly action: "settle"; readonly holdId: string; readonly reference: string }
  | { readonly action: "release"; readonly holdId: string };

/** One call's answer, as its single route would have given it. */
interface CallAnswer {
  readonly status: number;
  readonly body: unknown;
}

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
  new ApiError(503, "UNAVAILABLE", `The exchange, which verifies signatures and holds fees, is unavailable: ${why}`);

export class ExchangeClient {
  private readonly options: ExchangeClientOptions;
  private readonly fetch: typeof fetch;
  private readonly feeHoldCalls: OrderedBatch<FeeHoldCall, CallAnswer>;
  private readonly verifications: OrderedBatch<SignedRequest, CallAnswer>;

  constructor(options: ExchangeClientOptions) {
    this.options = options;
    this.fetch = options.fetch ?? fetch;
    this.feeHoldCalls = new OrderedBatch((calls) => this.sendFeeHoldCalls(calls), FEE_HOLD_BATCH_MAX);
    this.verifications = new OrderedBatch((requests) => this.sendVerifications(requests), VERIFY_BATCH_MAX, {
      // Bytes as sent: a body's characters can take up to 3 bytes each in UTF-8, and quotes or
      // control characters grow when escaped, so its length would undercount.
      weightOf: (request) => Buffer.byteLength(JSON.stringify(request)) + 20,
      max: VERIFY_BATCH_BYTES,
    });
  }

  /** Who signed the request; 401 UNAUTHORIZED (the exchange's message) when nobody valid did. */
  async verify(request: SignedRequest): Promise<Caller> {
    const { status, body } = await this.verifications.send(request);
    if (status === 200) return callerSchema.parse(body);
    if (status === 401) throw new ApiError(401, "UNAUTHORIZED", errorSchema.parse(body).message);
    throw this.unexpected(status, body);
  }

  /**
   * Holds `amount` of the user's available balance under `holdId` (idempotent on holdId).
   * 402 INSUFFICIENT_FEE when the available balance does not cover it.
   */
  async hold(hold: FeeHold): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "hold", ...hold });
    if (status === 200 || status === 201) return;
    const error = errorSchema.safeParse(body);
    if (error.success && error.data.code === "INSUFFICIENT_BALANCE")
      throw writeError(
        "INSUFFICIENT_FEE",
        `the spawn fee is ${hold.amount} ${hold.currency}; your available ${hold.currency} balance on the exchange does not cover it (${error.data.message})`,
      );
    throw this.unexpected(status, body);
  }

  /** Charges a held fee for good (the transaction was mined); idempotent. */
  async settle(holdId: string, reference: string): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "settle", holdId, reference });
    if (status !== 200) throw this.unexpected(status, body);
  }

  /** Gives a held fee back (nothing was mined); idempotent, and a hold never made is fine. */
  async release(holdId: string): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "release", holdId });
    if (status !== 200 && status !== 404) throw this.unexpected(status, body);
  }

  private sendFeeHoldCalls(calls: readonly FeeHoldCall[]) {
    return this.sendBatch("/internal/fee-holds/batch", "fee-hold calls", { calls }, calls.length, "hold");
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

  /**
   * One request for the items gathered, each answered `{status, <field> | error}`, in order; a
   * failure of the request fails every item alike.
   */
  private async sendBatch(
    path: string,
    what: string,
    payload: unknown,
    count: number,
    field: "hold" | "caller",
  ): Promise<PromiseSettledResult<CallAnswer>[]> {
    const { status, body } = await this.call("POST", path, payload);
    if (status !== 200) throw this.unexpected(status, body);
    const answer = batchAnswer.safeParse(body);
    if (!answer.success || answer.data.results.length !== count)
      throw new ApiError(500, "INTERNAL", `exchange answered a batch of ${count} ${what} unreadably`);
    return answer.data.results.map((result) => ({
      status: "fulfilled",
      value: { status: result.status, body: result.error ?? result[field] },
    }));
  }

  private async call(method: string, path: string, payload: unknown): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await this.fetch(new URL(path, this.options.baseUrl), {
        method,
        headers: { "content-type": "application/json", "X-Service-Secret": this.options.serviceSecret },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw exchangeUnavailable((error as Error).name === "TimeoutError" ? "no answer in time" : "not reachable");
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  }

  private unexpected(status: number, body: unknown): ApiError {
    if (status === 503 || status === 429 || status >= 500) return exchangeUnavailable(`it answered ${status}`);
    // A 4xx here is this process's mistake (a wrong service secret, a malformed call): an
    // operator's problem, reported as such rather than blamed on the client.
    const detail = errorSchema.safeParse(body);
    return new ApiError(
      500 as ContentfulStatusCode,
      "INTERNAL",
      `exchange refused an internal call (${status}${detail.success ? ` ${detail.data.code}` : ""})`,
    );
  }
}
