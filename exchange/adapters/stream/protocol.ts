import { z } from "zod";

/**
 * The client side of the WebSocket protocol, in Binance's convention: `{"method","params","id"}`
 * requests answered `{"result","id"}` or `{"error":{code,message},"id"}`. Streams are
 * `<PAIR>@trade`, `<PAIR>@depth`, `<PAIR>@ticker` and `!ticker@arr`; after LOGIN the connection
 * also receives its user's events on stream `user`.
 */

export const MARKET_STREAM = /^([A-Z0-9]{1,16}_[A-Z0-9]{1,16})@(trade|depth|ticker)$/;
export const ALL_TICKERS = "!ticker@arr";

const id = z.union([z.number().int(), z.string().max(64), z.null()]).optional();

const subscription = z.object({
  method: z.enum(["SUBSCRIBE", "UNSUBSCRIBE"]),
  params: z.array(z.string().max(64)).min(1).max(100),
  id,
});
const list = z.object({ method: z.literal("LIST_SUBSCRIPTIONS"), params: z.array(z.never()).max(0).optional(), id });
/** A LOGIN: an API key's signature, or a web session's one-use ticket (GET /api/account/ws-ticket). */
const signedLogin = z.object({
  apiKey: z.string().min(1).max(256),
  timestamp: z.union([z.string(), z.number().int()]).transform(String),
  signature: z.string().min(1).max(128),
});
const ticketLogin = z.strictObject({ ticket: z.string().min(1).max(128) });
export type LoginParams = z.infer<typeof signedLogin> | z.infer<typeof ticketLogin>;
const login = z.object({
  method: z.literal("LOGIN"),
  params: z.union([ticketLogin, signedLogin]),
  id,
});

export const clientMessage = z.discriminatedUnion("method", [subscription, list, login]);
export type ClientMessage = z.infer<typeof clientMessage>;

export interface ProtocolError {
  readonly code: string;
  readonly message: string;
}

/** Parses one text frame; a value with a stable code for anything malformed. */
export function parseClientMessage(
  text: string,
): { ok: true; message: ClientMessage } | { ok: false; error: ProtocolError; id?: unknown } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: { code: "INVALID_PARAM", message: "the message is not JSON" } };
  }
  const requestId = (json as { id?: unknown } | null)?.id;
  const parsed = clientMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const method = (json as { method?: unknown } | null)?.method;
  const known = ["SUBSCRIBE", "UNSUBSCRIBE", "LIST_SUBSCRIPTIONS", "LOGIN"];
  const message =
    typeof method !== "string" || !known.includes(method)
      ? `method must be one of ${known.join(", ")}`
      : parsed.error.issues.map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ");
  return { ok: false, error: { code: "INVALID_PARAM", message }, id: requestId };
}
