import type { BookEvent } from "../matching/types.ts";
import { baseUnitsOfLots, quoteUnitsOf, type PairSpec } from "../money/pair.ts";
import type { TradeFees } from "./commissions.ts";
import { releaseHold, settleTrade } from "./orders.ts";
import { applyEntry } from "./state.ts";
import type { Entry, LedgerState } from "./types.ts";

/**
 * Books the money side of a command's events, in order, and returns the entries it
 * applied. Afterwards every order still resting holds exactly what its remainder
 * needs, and finished orders hold nothing. Rejections move nothing here: whoever
 * placed a hold before a rejected command releases it (a rejected duplicate id must
 * never release the resting order's hold).
 */
export function applyBookEvents(
  state: LedgerState,
  pair: PairSpec,
  fees: TradeFees,
  events: readonly BookEvent[],
): Entry[] {
  const entries: Entry[] = [];
  const apply = (entry: Entry | null) => {
    if (entry === null) return;
    applyEntry(state, entry);
    entries.push(entry);
  };
  for (const event of events) {
    switch (event.type) {
      case "trade":
        apply(settleTrade(pair, fees, event));
        if (event.makerRemaining === 0) apply(releaseHold(state, event.makerOrderId));
        break;
      case "cancelled":
        apply(releaseHold(state, event.orderId));
        break;
      case "done": {
        // A taker bid that traded below its limit kept the difference locked; a resting
        // remainder needs only its own price x remaining, the rest goes back.
        const keep =
          event.status !== "resting"
            ? 0n
            : event.isBid
              ? quoteUnitsOf(event.price!, event.remaining, pair)
              : baseUnitsOfLots(event.remaining, pair);
        apply(releaseHold(state, event.orderId, keep));
        break;
      }
      case "accepted":
      case "rejected":
        break;
    }
  }
  return entries;
}
