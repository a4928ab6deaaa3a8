import { compareDecimal } from "./decimal.ts";
import { formatAmount } from "./format.ts";

/** How a 24 h change reads, and its colour class (none when it is neither up nor down). */
export interface ChangeView {
  text: string;
  className: "buy-text" | "sell-text" | "muted" | undefined;
}

/**
 * The exchange's 24 h change (a percentage with 2 decimals, exact) for reading. The exchange says
 * 0 when it has no earlier price, so with no trade in the window the change is "—", not a 0%
 * that would claim a price held steady; a real 0% is shown uncoloured, neither up nor down.
 */
export function changeView(percent: string | null, tradedInWindow: boolean): ChangeView {
  if (percent === null || !tradedInWindow) return { text: "—", className: "muted" };
  const sign = compareDecimal(percent, "0");
  if (sign === 0) return { text: "0%", className: undefined };
  return { text: `${formatAmount(percent, 2)}%`, className: sign > 0 ? "buy-text" : "sell-text" };
}
