import { useEffect, useRef, useState } from "react";

/**
 * The ecosystem API's server-sent event streams (api/README.md "Streams"). EventSource resumes
 * by itself with Last-Event-ID after a dropped connection; when the server refuses the stream
 * (429, 503: EventSource then gives up) this reconnects after a pause with `?lastEventId=` so
 * nothing is missed. `resync` (replay limit, unknown id, slow client) and `retract` (a reorg)
 * mean what the page holds may be stale: `onResync` re-reads the REST lists.
 */

export type StreamStatus = "connecting" | "live" | "reconnecting";

export function useEventStream(
  url: string | null,
  listeners: Record<string, (data: unknown) => void>,
  onResync?: () => void,
): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const listenersRef = useRef(listeners);
  listenersRef.current = listeners;
  const resyncRef = useRef(onResync);
  resyncRef.current = onResync;
  const names = Object.keys(listeners).sort().join(",");

  useEffect(() => {
    if (!url || typeof EventSource === "undefined") return;
    let source: EventSource | null = null;
    let lastEventId: string | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const open = () => {
      const target = new URL(url, location.href);
      if (lastEventId) target.searchParams.set("lastEventId", lastEventId);
      source = new EventSource(target);
      source.onopen = () => setStatus("live");
      source.onerror = () => {
        if (!source || source.readyState !== EventSource.CLOSED) {
          setStatus("reconnecting");
          return;
        }
        setStatus("reconnecting");
        if (!stopped) retryTimer = setTimeout(open, 5_000);
      };
      for (const name of names.split(",").filter(Boolean)) {
        source.addEventListener(name, (event) => {
          const message = event as MessageEvent<string>;
          if (message.lastEventId) lastEventId = message.lastEventId;
          try {
            listenersRef.current[name]?.(JSON.parse(message.data));
          } catch {
            // A malformed event is skipped; the next REST read has the truth.
          }
        });
      }
      for (const name of ["resync", "retract"]) source.addEventListener(name, () => resyncRef.current?.());
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [url, names]);

  return status;
}
