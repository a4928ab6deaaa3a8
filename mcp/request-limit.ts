import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC error code of a request refused by the session's quota (server-defined range). */
export const RATE_LIMITED_RPC = -32029;

/**
 * A quota on every JSON-RPC request of one session (tools, resources, subscriptions), whatever the
 * transport: wraps the onmessage that server.connect() installed. Initialize and ping are free;
 * tool calls have their own quota (tools/tool.ts), answered as a tool error with SPEC.md's code.
 */
const UNCOUNTED = new Set(["initialize", "ping", "tools/call"]);

export function limitRequests(transport: Transport, perMinute: number, now: () => number = Date.now) {
  const inner = transport.onmessage;
  if (!inner) throw new Error("limitRequests needs a connected transport");
  let windowStart = now();
  let used = 0;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message) && !UNCOUNTED.has(message.method)) {
      if (now() - windowStart >= 60_000) {
        windowStart = now();
        used = 0;
      }
      if (++used > perMinute) {
        const retryAfter = Math.ceil((windowStart + 60_000 - now()) / 1000);
        void transport.send(
          {
            jsonrpc: "2.0",
            id: message.id,
            error: { code: RATE_LIMITED_RPC, message: "RATE_LIMITED", data: { retryAfter } },
          },
          { relatedRequestId: message.id },
        );
        return;
      }
    }
    inner(message, extra);
  };
}
