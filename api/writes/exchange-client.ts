import {
  type CallAnswer,
  type Caller,
  ExchangeInternalClient,
  type ExchangeInternalOptions,
  type SignedRequest,
} from "../../lib/exchange-internal-client.ts";
import { ApiError } from "../../lib/http/index.ts";
import { OrderedBatch } from "../../lib/ordered-batch.ts";
import { UnavailableError } from "../../lib/unavailable.ts";
import { isWriteCode, type Rejection, rejection } from "./outcome.ts";

/**
 * The exchange as the ecosystem API uses it: who signed a request (the shared internal client,
 * lib/exchange-internal-client.ts, which the WebSocket gateway's logins use too), and the fee holds
 * that charge a user's exchange balance for an on-chain action. Every call has a deadline; an
 * exchange that does not answer is unavailable, never a hang, and nothing it answers is a 500.
 *
 * Fee-hold calls go through the exchange's batch route: an idle client sends a call at once, and
 * the calls made while its request is out share the next. Under load a spawn's hold and the
 * settles of the spawns mined meanwhile then cost one request and one commit instead of one each
 * (bench:writes, PGlite: about 1.5 ms of the exchange's CPU per commit of one hold, 0.15 ms per
 * hold in a commit of ten). A call waits at most for the request in flight and then its own: two
 * deadlines.
 *
 * The fee-hold calls speak the writes' terms (outcome.ts): a refused hold is a rejection, an
 * exchange that cannot serve an UnavailableError (with the exchange's Retry-After). The signature
 * check is the HTTP layer's (signed.ts) and answers as the HTTP layer does.
 */

export type { Caller, SignedRequest } from "../../lib/exchange-internal-client.ts";

export interface FeeHold {
  readonly holdId: string;
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency. */
  readonly amount: string;
  readonly memo?: string;
}

export type ExchangeClientOptions = ExchangeInternalOptions;

/** Most calls in one batch request (the exchange's FEE_HOLD_BATCH_MAX). */
const FEE_HOLD_BATCH_MAX = 100;

type FeeHoldCall =
  | ({ readonly action: "hold" } & FeeHold)
  | { readonly action: "settle"; readonly holdId: string; readonly reference: string }
  | { readonly action: "release"; readonly holdId: string };

export class ExchangeClient {
  private readonly internal: ExchangeInternalClient;
  private readonly feeHoldCalls: OrderedBatch<FeeHoldCall, CallAnswer>;

  constructor(options: ExchangeClientOptions) {
    this.internal = new ExchangeInternalClient(options);
    this.feeHoldCalls = new OrderedBatch(
      (calls) =>
        this.internal.sendBatch("/internal/fee-holds/batch", "fee-hold calls", { calls }, calls.length, "hold"),
      FEE_HOLD_BATCH_MAX,
    );
  }

  /** Who signed the request; 401 UNAUTHORIZED (the exchange's message) when nobody valid did. */
  verify(request: SignedRequest): Promise<Caller> {
    return this.internal.verify(request);
  }

  /**
   * Holds `amount` of the user's available balance under `holdId` (idempotent on holdId):
   * undefined once held, INSUFFICIENT_FEE when the available balance does not cover it, or the
   * exchange's own code for another refusal.
   */
  async hold(hold: FeeHold): Promise<Rejection | undefined> {
    const { status, body } = await this.send({ action: "hold", ...hold });
    if (status === 200 || status === 201) return undefined;
    const error = this.refusal(status, body);
    if (error.code === "INSUFFICIENT_BALANCE")
      return rejection(
        "INSUFFICIENT_FEE",
        `the spawn fee is ${hold.amount} ${hold.currency}; your available ${hold.currency} balance on the exchange does not cover it (${error.message})`,
      );
    if (isWriteCode(error.code)) return rejection(error.code, error.message);
    throw new Error(`the exchange refused a fee hold with ${status} ${error.code}: ${error.message}`);
  }

  /** Charges a held fee for good (the transaction was mined); idempotent. */
  async settle(holdId: string, reference: string): Promise<void> {
    const { status, body } = await this.send({ action: "settle", holdId, reference });
    if (status !== 200) throw this.refusal(status, body);
  }

  /**
   * Gives a held fee back (nothing was mined); idempotent, and a hold never made is fine: the
   * exchange then refuses that hold id for good, so a hold still on its way cannot land after.
   */
  async release(holdId: string): Promise<void> {
    const { status, body } = await this.send({ action: "release", holdId });
    if (status !== 200 && status !== 404) throw this.refusal(status, body);
  }

  private async send(call: FeeHoldCall): Promise<CallAnswer> {
    try {
      return await this.feeHoldCalls.send(call);
    } catch (error) {
      throw unavailableOf(error);
    }
  }

  /** A refused fee-hold call: the exchange's code and message, or UnavailableError when it cannot serve now. */
  private refusal(status: number, body: unknown): ApiError {
    const error = this.internal.refusal(status, body);
    if (error.status === 503) throw unavailableOf(error);
    return error;
  }
}

/** What cannot serve when the exchange does not. */
export const EXCHANGE = "exchange";

/** The internal client's 503 (an exchange away, slow or refusing the call) as the one UnavailableError. */
function unavailableOf(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 503) return error;
  const retryAfter = Number(error.headers["Retry-After"]);
  return new UnavailableError(EXCHANGE, error.message, {
    cause: error,
    retryAfterSeconds: Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  });
}
