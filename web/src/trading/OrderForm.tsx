import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useSessionApi } from "../account/session.ts";
import type { Order } from "../account/types.ts";
import { ErrorState } from "../components/states.tsx";
import { buildOrder, type OrderForm as Fields, orderTotal, type PairDigits, roundingHint } from "./order-input.ts";

/**
 * Places an order with the web session: buy or sell, limit or market, post-only and the time in
 * force; amount and price rounded to the pair's digits, the trader's way, before sending (order-input.ts). A
 * field whose value would be sent rounded says so beside it (a polite live region, its
 * description), and the total shown is that of the values sent.
 */
export function OrderForm({ pair, csrf, userId }: { pair: PairDigits; csrf: string; userId: string }) {
  const api = useSessionApi();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Fields>({
    side: "buy",
    type: "limit",
    amount: "",
    price: "",
    timeInForce: "GTC",
    postOnly: false,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [placed, setPlaced] = useState<Order | null>(null);
  const id = useId();
  const set = (change: Partial<Fields>) => {
    setFields((old) => ({ ...old, ...change }));
    setProblem(null);
  };
  const place = useMutation({
    mutationFn: (body: unknown) => api.write<Order>("POST", "/api/orders", csrf, body),
    onSuccess: (order) => setPlaced(order),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["exchange-orders", userId] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setPlaced(null);
    place.reset();
    const built = buildOrder(fields, pair);
    if (!built.ok) return setProblem(built.error);
    place.mutate(built.body);
  };
  const [base, quote] = pair.code.split("_");
  const limit = fields.type === "limit";
  const priceHint = roundingHint("price", fields.price, pair.digitsPrice, fields.side);
  const amountHint = roundingHint("amount", fields.amount, pair.digitsAmount, fields.side);
  const total = limit ? orderTotal(fields, pair) : null;
  return (
    <form className="trade-form panel" aria-label="Order form" onSubmit={submit} noValidate>
      <fieldset className="segmented">
        <legend className="visually-hidden">Side</legend>
        {(["buy", "sell"] as const).map((side) => (
          <button key={side} type="button" aria-pressed={fields.side === side} onClick={() => set({ side })}>
            {side === "buy" ? `Buy ${base}` : `Sell ${base}`}
          </button>
        ))}
      </fieldset>
      <div className="row">
        <label htmlFor={`${id}-type`}>Order type</label>
        <select
          id={`${id}-type`}
          value={fields.type}
          onChange={(e) => {
            const type = e.target.value as Fields["type"];
            set({ type, ...(type === "market" ? { postOnly: false, timeInForce: "IOC" } : { timeInForce: "GTC" }) });
          }}
        >
          <option value="limit">Limit</option>
          <option value="market">Market</option>
        </select>
        <label htmlFor={`${id}-tif`}>Time in force</label>
        <select
          id={`${id}-tif`}
          value={fields.timeInForce}
          onChange={(e) => set({ timeInForce: e.target.value as Fields["timeInForce"] })}
        >
          {limit && <option value="GTC">GTC (good till cancelled)</option>}
          <option value="IOC">IOC (immediate or cancel)</option>
          <option value="FOK">FOK (fill or kill)</option>
        </select>
      </div>
      {limit && (
        <DecimalField
          id={`${id}-price`}
          label={`Price (${quote}, ${pair.digitsPrice} decimals)`}
          value={fields.price}
          onChange={(price) => set({ price })}
          hint={priceHint}
        />
      )}
      <DecimalField
        id={`${id}-amount`}
        label={`Amount (${base}, ${pair.digitsAmount} decimals)`}
        value={fields.amount}
        onChange={(amount) => set({ amount })}
        hint={amountHint}
      />
      {limit && (
        <label className="check">
          <input
            type="checkbox"
            checked={fields.postOnly}
            onChange={(e) => set({ postOnly: e.target.checked, ...(e.target.checked ? { timeInForce: "GTC" } : {}) })}
          />{" "}
          Post-only (never takes: refused if it would trade at once)
        </label>
      )}
      {total !== null && (
        <p id={`${id}-total`}>
          Total {total} {quote} (price × amount as sent)
        </p>
      )}
      <button
        type="submit"
        className={fields.side === "buy" ? "buy" : "sell"}
        disabled={place.isPending}
        aria-describedby={total === null ? undefined : `${id}-total`}
      >
        {fields.side === "buy" ? "Place buy order" : "Place sell order"}
      </button>
      {problem && (
        <p role="alert" className="error-text">
          {problem}
        </p>
      )}
      {place.error && <ErrorState error={place.error} />}
      {placed && (
        <p role="status">
          Order {placed.status}: {placed.isBid ? "buy" : "sell"} {placed.amount} {base}
          {placed.price === null ? "" : ` at ${placed.price}`}, {placed.filledAmount} filled.
        </p>
      )}
    </form>
  );
}

/**
 * A decimal input with the hint that describes it. The hint is always rendered (a polite live
 * region), so a screen reader is listening when its text appears.
 */
function DecimalField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint: string | null;
}) {
  const { id, label, value, onChange, hint } = props;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-hint`}
      />
      <span id={`${id}-hint`} className="field-hint" aria-live="polite">
        {hint}
      </span>
    </div>
  );
}
