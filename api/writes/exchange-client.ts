import {
  type CallAnswer,
  type Caller,
  ExchangeInternalClient,
  type ExchangeInternalOptions,
  type SignedRequest,
} from "../../lib/exchange-internal-client.ts";
import { OrderedBatch } from "../../lib/ordered-batch.ts";
import { writeError } from "./errors.ts";

/**
 * The exchange as the ecosystem API uses it: who signed a request (the shared internal client,
 * lib/exchange-internal-client.ts, which the WebSocket gateway's logins use too), and the fee holds
 * that charge a user's exchange balance for an on-chain action. Every call has a deadline; an
 * exchange that does not answer is a 503, never a hang, and nothing it answers is a 500.
 *
 * Fee-hold calls go through the exchange's batch route: an idle client sends a call at once, and
 * the calls made while its request is out share the next. Under load a spawn's hold and the
 * settles of the spawns mined meanwhile then cost one request and one commit instead of one each
 * (bench:writes, PGlite: about 1.5 ms of the exchange's CPU per commit of one hold, 0.15 ms per
 * hold in a commit of ten). A call waits at most for the request in flight and then its own: two
 * deadlines.
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
   * Holds `amount` of the user's available balance under `holdId` (idempotent on holdId).
   * 402 INSUFFICIENT_FEE when the available balance does not cover it.
   */
  async hold(hold: FeeHold): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "hold", ...hold });
    if (status === 200 || status === 201) return;
    const error = this.internal.refusal(status, body);
    if (error.code === "INSUFFICIENT_BALANCE")
      throw writeError(
        "INSUFFICIENT_FEE",
        `the spawn fee is ${hold.amount} ${hold.currency}; your available ${hold.currency} balance on the exchange does not cover it (${error.message})`,
      );
    throw error;
  }

  /** Charges a held fee for good (the transaction was mined); idempotent. */
  async settle(holdId: string, reference: string): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "settle", holdId, reference });
    if (status !== 200) throw this.internal.refusal(status, body);
  }

  /**
   * Gives a held fee back (nothing was mined); idempotent, and a hold never made is fine: the
   * exchange then refuses that hold id for good, so a hold still on its way cannot land after.
   */
  async release(holdId: string): Promise<void> {
    const { status, body } = await this.feeHoldCalls.send({ action: "release", holdId });
    if (status !== 200 && status !== 404) throw this.internal.refusal(status, body);
  }
}
