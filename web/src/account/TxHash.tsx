import { usePlatform } from "../context.ts";
import { shortAddress } from "../lib/format.ts";

/** A transaction hash: a link to the chain's explorer when the app knows one, else short monospace text. */
export function TxHash({ hash }: { hash: string | null | undefined }) {
  const { config } = usePlatform();
  if (!hash) return <span className="muted">—</span>;
  const short = <code title={hash}>{shortAddress(hash)}</code>;
  if (config.explorerUrl === undefined) return short;
  return (
    <a href={`${config.explorerUrl.replace(/\/$/, "")}/tx/${hash}`} target="_blank" rel="noreferrer">
      {short}
    </a>
  );
}
