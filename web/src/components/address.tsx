import { useState } from "react";
import { shortAddress } from "../lib/format.ts";

/** An address, shortened, with a button that copies it whole. */
export function CopyableAddress({ address, label }: { address: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="address">
      <code title={address}>{address}</code>
      <button
        type="button"
        className="small"
        aria-label={`Copy ${label ?? "address"}`}
        onClick={() => {
          void navigator.clipboard?.writeText(address).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          });
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}

export function ShortAddress({ address }: { address: string }) {
  return (
    <code className="short-address" title={address}>
      {shortAddress(address)}
    </code>
  );
}
