import type { StreamStatus } from "../lib/event-stream.ts";

export function LiveBadge({ status }: { status: StreamStatus }) {
  const text = status === "live" ? "Live" : status === "connecting" ? "Connecting…" : "Reconnecting…";
  return (
    <span className="muted" role="status">
      <span className={`live-dot${status === "live" ? "" : " off"}`} aria-hidden="true" />
      {text}
    </span>
  );
}
