import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { CopyableAddress } from "../components/address.tsx";
import { ApiError } from "../api/errors.ts";
import { Empty, ErrorState, Loading } from "../components/states.tsx";
import { useAssets, useCurrencyCodes } from "./currencies.ts";
import { DepositHistory } from "./DepositHistory.tsx";
import { QrCode } from "./QrCode.tsx";
import { useSessionApi } from "./session.ts";
import type { DepositAddress } from "./types.ts";

/**
 * Deposit: pick a currency, get the account's deposit address for it (the same on every call),
 * shown with a QR code and a copy button; then the deposit history with confirmation counts.
 */
export function Deposit({ userId }: { userId: string }) {
  const api = useSessionApi();
  const codes = useCurrencyCodes();
  const assets = useAssets();
  const [picked, setPicked] = useState<string | null>(null);
  const selectId = useId();
  const depositable = (codes.data ?? []).filter((code) => assets.data?.[code]?.can_deposit !== false);
  const currency = picked ?? depositable[0] ?? null;
  const address = useQuery({
    queryKey: ["exchange-deposit-address", userId, currency],
    queryFn: () => api.get<DepositAddress>("/api/deposits/address", { currencyCode: currency ?? "" }),
    enabled: currency !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return (
    <section aria-labelledby="deposit-heading">
      <h2 id="deposit-heading">Deposit</h2>
      {codes.error ? <ErrorState error={codes.error} onRetry={() => void codes.refetch()} /> : null}
      <label htmlFor={selectId}>Currency to deposit</label>{" "}
      <select id={selectId} value={currency ?? ""} onChange={(e) => setPicked(e.target.value)}>
        {depositable.map((code) => (
          <option key={code} value={code}>
            {code}
          </option>
        ))}
      </select>
      {currency !== null && address.isPending && <Loading label="Getting your deposit address…" />}
      {address.error instanceof ApiError && address.error.status === 404 ? (
        // An exchange without the deposit gateway has no such route: say so, not "not found".
        <Empty>This exchange does not give deposit addresses yet.</Empty>
      ) : address.error ? (
        <ErrorState error={address.error} onRetry={() => void address.refetch()} />
      ) : null}
      {address.data && (
        <div className="deposit-address panel">
          <QrCode text={address.data.address} label={`QR code of the ${address.data.currencyCode} deposit address`} />
          <div>
            <p>
              Send {address.data.currencyCode} on chain {address.data.chainId} to:
            </p>
            <p>
              <CopyableAddress address={address.data.address} label="deposit address" />
            </p>
            <p className="muted">
              Credited after {address.data.confirmations} confirmation{address.data.confirmations === 1 ? "" : "s"}.
              Send only {address.data.currencyCode} by a plain transfer.
            </p>
          </div>
        </div>
      )}
      <DepositHistory userId={userId} />
    </section>
  );
}
