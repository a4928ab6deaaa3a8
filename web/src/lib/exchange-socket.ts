import { parseExactJson } from "./lossless-json.ts";

/**
 * The exchange's `/ws` (Binance convention, README "Live market data"): SUBSCRIBE to streams,
 * events arrive as `{stream, data}`. Reconnects with backoff (1 s .. 15 s) and subscribes again;
 * every (re)connection calls `onOpen`, where a local book starts over from a snapshot, since
 * diffs sent while disconnected are gone. Messages are parsed with exact decimals.
 */
export type SocketStatus = "connecting" | "live" | "reconnecting";

export interface ExchangeSocketOptions {
  url: string;
  streams: string[];
  onEvent: (stream: string, data: unknown) => void;
  onOpen: () => void;
  onStatus: (status: SocketStatus) => void;
}

export function openExchangeSocket(options: ExchangeSocketOptions): () => void {
  let socket: WebSocket | null = null;
  let stopped = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    options.onStatus(attempt === 0 ? "connecting" : "reconnecting");
    socket = new WebSocket(options.url);
    socket.onopen = () => {
      attempt = 0;
      socket?.send(JSON.stringify({ method: "SUBSCRIBE", params: options.streams, id: 1 }));
      options.onStatus("live");
      options.onOpen();
    };
    socket.onmessage = (message) => {
      if (typeof message.data !== "string") return;
      const parsed = parseExactJson<{ stream?: string; data?: unknown }>(message.data);
      if (parsed.stream) options.onEvent(parsed.stream, parsed.data);
    };
    socket.onclose = () => {
      if (stopped) return;
      options.onStatus("reconnecting");
      attempt++;
      timer = setTimeout(connect, Math.min(1000 * 2 ** (attempt - 1), 15_000));
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}
