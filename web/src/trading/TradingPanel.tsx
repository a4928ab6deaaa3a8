import { Link } from "wouter";
import { useExchangeAccount } from "../account/session.ts";
import { Loading } from "../components/states.tsx";
import { OpenOrders } from "./OpenOrders.tsx";
import { OrderForm } from "./OrderForm.tsx";
import type { PairDigits } from "./order-input.ts";
import { OrderHistory } from "./OrderHistory.tsx";
import { useUserStream } from "./user-stream.ts";

/**
 * The trading screen's own part: with a web-account session, the order form, open orders and
 * order history on this pair, kept current by the user stream over /ws; without one, a way to
 * sign in.
 */
export function TradingPanel({ pair }: { pair: PairDigits }) {
  const account = useExchangeAccount();
  if (account.isPending) return <Loading label="Reading your exchange session…" />;
  const me = account.data;
  if (!me)
    return (
      <section aria-labelledby="trade-heading" className="panel">
        <h2 id="trade-heading">Trade</h2>
        <p>
          <Link href="/account">Sign in to trade</Link> with your wallet on the exchange's web account.
        </p>
      </section>
    );
  return <SignedInPanel pair={pair} userId={me.userId} csrf={me.csrfToken} />;
}

function SignedInPanel({ pair, userId, csrf }: { pair: PairDigits; userId: string; csrf: string }) {
  const live = useUserStream(userId);
  return (
    <>
      <div className="grid two">
        <section aria-labelledby="trade-heading">
          <h2 id="trade-heading">Trade</h2>
          <OrderForm pair={pair} csrf={csrf} userId={userId} />
        </section>
        <OpenOrders pair={pair.code} csrf={csrf} userId={userId} live={live} />
      </div>
      <OrderHistory pair={pair.code} userId={userId} live={live} />
    </>
  );
}
