import { Link } from "wouter";
import { RelativeTime } from "../components/time.tsx";
import { shortAddress } from "../lib/format.ts";
import type { TokenRef } from "./directory.ts";
import { type ActionEntry, agentLabel, payloadSummary } from "./entries.ts";

/** One row per action-log entry (the browser suite counts them): the log page's and a worker's. */
export function ActionLogTable({
  rows,
  caption,
  tokens,
  showToken = true,
}: {
  rows: ActionEntry[];
  caption: string;
  tokens: Map<number, TokenRef>;
  showToken?: boolean;
}) {
  return (
    // Its details column scrolls sideways: a keyboard must reach it (axe scrollable-region-focusable).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is focusable by design (WCAG 2.1.1)
    <section className="table-wrap" tabIndex={0} aria-label={caption}>
      <table className="action-log">
        <caption className="muted">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Tier</th>
            <th scope="col">Type</th>
            <th scope="col">Agent</th>
            {showToken && <th scope="col">Token</th>}
            <th scope="col">Transaction</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => {
            const token = tokens.get(e.targetTokenId);
            const payload = e.actionPayload === null ? "" : JSON.stringify(e.actionPayload);
            return (
              <tr key={e.entryId} data-entry-id={e.entryId}>
                <td>
                  <RelativeTime time={e.timestamp} />
                </td>
                <td>
                  <span className={`badge tier-${e.sourceTier}`}>{e.sourceTier}</span>
                </td>
                <td>{e.actionType}</td>
                <td>{agentLabel(e.sourceAgentId)}</td>
                {showToken && (
                  <td>
                    <Link href={`/tokens/${token?.address ?? e.targetTokenId}`}>
                      {token ? token.symbol : `#${e.targetTokenId}`}
                    </Link>{" "}
                    <Link
                      href={`/agents/workers/${e.targetTokenId}`}
                      aria-label={`worker of ${token ? token.symbol : `token #${e.targetTokenId}`}`}
                      className="muted"
                    >
                      worker
                    </Link>
                  </td>
                )}
                <td>
                  <code title={e.txHash}>{shortAddress(e.txHash)}</code>
                </td>
                <td title={payload || undefined}>
                  <span>{e.reasonCode}</span>
                  {payload && (
                    <>
                      {" "}
                      <code className="muted">{payloadSummary(e.actionPayload)}</code>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
