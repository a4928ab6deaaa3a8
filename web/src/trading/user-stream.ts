import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useSessionApi } from "../account/session.ts";
import { usePlatform } from "../context.ts";

/**
 * The signed-in user's stream over `/ws`: the page asks the exchange for a one-use ticket with
 * its session (GET /api/account/ws-ticket; the WebSocket itself carries no cookie), LOGINs with
 * it, and on every order or fill event re-reads the orders and balances. Reconnects with a fresh
 * ticket after 5 s. Returns whether the stream is live; while it is not, the lists poll.
 */
export const RECONNECT_MS = 5_000;

export function useUserStream(userId: string): boolean {
  const api = useSessionApi();
  const { config } = usePlatform();
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);
  useEffect(() => {
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const retry = () => {
      setLive(false);
      if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
    };
    const connect = async () => {
      let ticket: string;
      try {
        ticket = (await api.get<{ ticket: string }>("/api/account/ws-ticket")).ticket;
      } catch {
        return retry();
      }
      if (stopped) return;
      socket = new WebSocket(config.exchangeWsUrl);
      socket.onopen = () => socket?.send(JSON.stringify({ method: "LOGIN", params: { ticket }, id: "login" }));
      socket.onmessage = (message) => {
        if (typeof message.data !== "string") return;
        const body = JSON.parse(message.data) as { id?: unknown; result?: unknown; error?: unknown; stream?: string };
        if (body.id === "login") {
          if (body.result) setLive(true);
          else socket?.close();
        } else if (body.stream === "user") {
          void queryClient.invalidateQueries({ queryKey: ["exchange-orders", userId] });
          void queryClient.invalidateQueries({ queryKey: ["exchange-balances", userId] });
        }
      };
      socket.onclose = retry;
    };
    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      if (socket) {
        socket.onclose = null;
        socket.close();
      }
    };
  }, [api, config.exchangeWsUrl, queryClient, userId]);
  return live;
}
