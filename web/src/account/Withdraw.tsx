import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { isAddress } from "viem";
import { ErrorState } from "../components/states.tsx";
import { addDecimal, compareDecimal, isZeroDecimal } from "../lib/decimal.ts";
import { formatAmount } from "../lib/format.ts";
import { checkAmount, percentText, withdrawalCommission, withdrawalFee } from "./amounts.ts";
import { decimalsOf, useAssets, useCurrencyCodes } from "./currencies.ts";
import { useSessionApi } from "./session.ts";
import type { Commission, Withdrawal } from "./types.ts";
import { WithdrawalHistory } from "./WithdrawalHistory.tsx";

/** What is wrong with the form, or null when it can be sent; amounts exact. */
export function withdrawProblem(
  input: { amount: string; address: string },
  limits: { digits: number; min: string | null; max: string | null; available: string | undefined },
): string | null {
  const amount = checkAmount(input.amount, limits.digits);
  if (!amount.ok) return `Amount: ${amount.error}`;
  if (limits.min !== null && compareDecimal(amount.value, limits.min) < 0) return `Amount: at least ${limits.min}`;
  if (limits.max !== null && compareDecimal(amount.value, limits.max) > 0) return `Amount: at most ${limits.max}`;
  if (limits.available !== undefined && compareDecimal(amount.value, limits.available) > 0)
    return `Amount: more than your available ${limits.available}`;
  if (!isAddress(input.address.trim(), { strict: true }))
    return "Address: not an address (0x and 40 hex digits, with a valid checksum when mixed case)";
  return null;
}

/**
 * Withdraw: a currency, an amount and an address; the fee (commission type 2) and the limits
 * shown before sending. Each submission carries a fresh clientWithdrawalId, so a retried request
 * debits once. Then the withdrawal history.
 */
export function Withdraw({ userId, csrf }: { userId: string; csrf: string }) {
  const api = useSessionApi();
  const queryClient = useQueryClient();
  const codes = useCurrencyCodes();
  const assets = useAssets();
  const commissions = useQuery({
    queryKey: ["exchange-commissions", userId],
    queryFn: () => api.get<Commission[]>("/api/currencies/user/commissions"),
    staleTime: 60_000,
  });
  const balances = useQuery<{ currencyCode: string; available: string }[]>({
    queryKey: ["exchange-balances", userId],
    queryFn: () => api.get("/api/balances"),
  });
  const [picked, setPicked] = useState<string | null>(null);
  const [amount, setAmount] = useState("");
  const [address, setAddress] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<Withdrawal | null>(null);
  const ids = { currency: useId(), amount: useId(), address: useId(), hint: useId() };
  const withdrawable = (codes.data ?? []).filter((code) => assets.data?.[code]?.can_withdraw !== false);
  const currency = picked ?? withdrawable[0] ?? "";
  const asset = assets.data?.[currency];
  const digits = decimalsOf(asset);
  const rule = withdrawalCommission(commissions.data ?? [], currency);
  const parsed = checkAmount(amount, digits);
  const fee = parsed.ok ? withdrawalFee(parsed.value, rule, currency, digits) : null;
  const available = balances.data?.find((b) => b.currencyCode === currency)?.available;

  const send = useMutation({
    mutationFn: (body: { currencyCode: string; amount: string; address: string; clientWithdrawalId: string }) =>
      api.write<Withdrawal>("POST", "/api/withdrawals", csrf, body),
    onSuccess: (withdrawal) => {
      setDone(withdrawal);
      setAmount("");
      void queryClient.invalidateQueries({ queryKey: ["exchange-withdrawals", userId] });
      void queryClient.invalidateQueries({ queryKey: ["exchange-balances", userId] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const found = withdrawProblem(
      { amount, address },
      { digits, min: asset?.min_withdraw ?? null, max: asset?.max_withdraw ?? null, available },
    );
    setProblem(found);
    if (found !== null || !parsed.ok) return;
    send.mutate({
      currencyCode: currency,
      amount: parsed.value,
      address: address.trim(),
      clientWithdrawalId: crypto.randomUUID(),
    });
  };
  return (
    <section aria-labelledby="withdraw-heading">
      <h2 id="withdraw-heading">Withdraw</h2>
      <form
        className="trade-form panel"
        aria-label="Withdraw form"
        onSubmit={submit}
        aria-describedby={ids.hint}
        noValidate
      >
        <label htmlFor={ids.currency}>Currency to withdraw</label>
        <select
          id={ids.currency}
          value={currency}
          onChange={(e) => {
            setPicked(e.target.value);
            setProblem(null);
          }}
        >
          {withdrawable.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <label htmlFor={ids.amount}>Amount</label>
        <input
          id={ids.amount}
          inputMode="decimal"
          autoComplete="off"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
        />
        <label htmlFor={ids.address}>Destination address</label>
        <input
          id={ids.address}
          autoComplete="off"
          spellCheck={false}
          placeholder="0x…"
          value={address}
          onChange={(e) => setAddress(e.target.value)}
        />
        <p id={ids.hint} className="muted">
          {available !== undefined && (
            <>
              Available {formatAmount(available, 18)} {currency}.{" "}
            </>
          )}
          {asset?.min_withdraw != null && <>Minimum {asset.min_withdraw}. </>}
          {asset?.max_withdraw != null && <>Maximum {asset.max_withdraw}. </>}
          Fee {rule === undefined ? "none" : feeRuleText(rule, currency)}
          {fee !== null && (
            <>
              : {fee} {currency} on this amount, {parsed.ok ? addDecimal(parsed.value, `-${fee}`) : ""} {currency} sent
            </>
          )}
          .
        </p>
        <button type="submit" disabled={send.isPending || currency === ""}>
          Withdraw
        </button>
      </form>
      {problem && (
        <p role="alert" className="error-text">
          {problem}
        </p>
      )}
      {send.error && <ErrorState error={send.error} />}
      {done && (
        <p role="status">
          Withdrawal of {done.amount} {done.currencyCode} accepted ({done.status}).
        </p>
      )}
      <WithdrawalHistory userId={userId} />
    </section>
  );
}

/** "0.1% of the amount, at least 1 USDT", "1 USDT" (a flat fee), or "none". */
function feeRuleText(rule: Commission, currency: string): string {
  const minimum = isZeroDecimal(rule.minimum) ? null : `${rule.minimum} ${rule.commissionCurrencyCode ?? currency}`;
  if (isZeroDecimal(rule.percent)) return minimum ?? "none";
  return `${percentText(rule.percent)} of the amount${minimum === null ? "" : `, at least ${minimum}`}`;
}
