import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { createConnectionSlots } from "../../../lib/connection-slots.ts";
import { ApiError, type AuthFailureGuard } from "../../../lib/http/index.ts";
import type { Hub, Subscriber } from "./hub.ts";
import { userStream } from "./market-feed.ts";
import { ALL_TICKERS, type LoginParams, MARKET_STREAM, parseClientMessage, type ProtocolError } from "./protocol.ts";

/**
 * The exchange's WebSocket endpoint (`/ws`): subscriptions to market streams, a signed LOGIN for
 * the user stream, and the operator's guards: connections per IP, subscriptions per connection,
 * messages per second, a bounded send buffer per connection (a client that falls behind is
 * closed with 4008 SLOW_CONSUMER and must resync), ping/pong to drop dead peers, and a timeout
 * for connections that subscribe to nothing.
 */

export interface StreamLimits {
  /** Open connections per client IP. */
  readonly maxConnectionsPerIp: number;
  /** Open connections in all. */
  readonly maxConnections: number;
  readonly maxSubscriptions: number;
  /** Requests a connection may send per second (burst: the same number). */
  readonly maxMessagesPerSecond: number;
  /** Bytes queued for a client beyond which it is closed as a slow consumer. */
  readonly maxBufferedBytes: number;
  readonly pingIntervalMs: number;
  /** A connection with no subscription and no login is closed after this long. */
  readonly idleTimeoutMs: number;
}

export type LoginResult = { ok: true; userId: string } | { ok: false; error: ProtocolError };

export interface StreamServerOptions {
  readonly hub: Hub;
  readonly limits: StreamLimits;
  /** Whether a pair code names an active pair (SUBSCRIBE refuses others with UNKNOWN_PAIR). */
  readonly isPair: (code: string) => boolean;
  /** Verifies a LOGIN; `url` is the WebSocket URL the client connected to (what it signs). */
  readonly verifyLogin?: (login: LoginParams, url: string) => Promise<LoginResult>;
  /**
   * Failed LOGINs counted per client IP, with the same guard as failed signatures over HTTP, so a
   * client cannot try keys over /ws that its HTTP failures already locked it out of. Over the
   * limit a LOGIN is answered RATE_LIMITED before its signature is checked.
   */
  readonly loginGuard?: Pick<AuthFailureGuard, "checkClient" | "failClient">;
  /**
   * Settles once the events of a user stream just subscribed are sure to reach this server (a
   * gateway waits for the exchange to confirm it publishes them): a LOGIN is answered only then,
   * or UNAVAILABLE if it rejects.
   */
  readonly userStreamReady?: (stream: string) => Promise<void>;
  /** The client key of an upgrade request for per-IP limits (clientIpOfRequest). */
  readonly clientIp: (request: IncomingMessage) => string;
  /** The public origin clients connect to (ws:// or wss://), when a proxy hides it. */
  readonly publicUrl?: string;
  readonly log?: (message: string) => void;
}

/**
 * One final, unmasked text frame (server to client, RFC 6455 5.2), built once and written to
 * every subscriber: FIN + opcode 1, then the payload length in 7, 7+16 or 7+64 bits.
 */
export function wsFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81;
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, header);
  return frame;
}

export const CLOSE_SLOW_CONSUMER = 4008;
export const CLOSE_IDLE = 4000;
export const CLOSE_TOO_MANY_MESSAGES = 4029;
/** A login's key was revoked (the exchange's /ws and the gateways' alike). */
export const CLOSE_KEY_REVOKED = 4001;
/** Largest request frame accepted (a LOGIN is ~300 bytes; 100 stream names ~2 KB). */
const MAX_FRAME_BYTES = 8 * 1024;

export interface StreamServer {
  readonly path: string;
  connectionCount(): number;
  /** Bytes queued for all clients (each connection is bounded by maxBufferedBytes). */
  bufferedBytes(): number;
  /** Connections closed as slow consumers since the start. */
  slowConsumers(): number;
  /** Closes every connection (a gateway that lost NATS: its clients must resync). */
  closeAll(code: number, reason: string): void;
  /** Closes the connections logged in with `publicKey` (a revoked key): their user stream ends now. */
  closeLogins(publicKey: string): number;
  /** The keys of the open connections' logins (a gateway re-checks them with the exchange). */
  loginKeys(): Set<string>;
  close(): Promise<void>;
}

class Connection implements Subscriber {
  readonly streams = new Set<string>();
  userId: string | undefined;
  /** The API key of its LOGIN, so revoking the key can end the user stream. */
  loginKey: string | undefined;
  alive = true;
  closed = false;
  /** Requests refused in a row for the rate. */
  refused = 0;
  readonly openedAt = Date.now();
  private tokens: number;
  private refilledAt = Date.now();

  readonly socket: WebSocket;
  /** The URL the client connected to: what a LOGIN signs. */
  readonly url: string;
  readonly ip: string;
  private readonly limits: StreamLimits;

  private readonly onSlow: () => void;

  constructor(socket: WebSocket, url: string, ip: string, limits: StreamLimits, onSlow: () => void) {
    this.onSlow = onSlow;
    this.socket = socket;
    this.url = url;
    this.ip = ip;
    this.limits = limits;
    this.tokens = limits.maxMessagesPerSecond;
  }

  deliver(bytes: Buffer): boolean {
    if (this.closed) return false;
    if (this.socket.bufferedAmount + bytes.length > this.limits.maxBufferedBytes) {
      this.onSlow();
      // The close frame waits behind what is queued: a client that reads again in time learns why.
      this.shut(CLOSE_SLOW_CONSUMER, "SLOW_CONSUMER: the connection fell behind; reconnect and resync", 10_000);
      return false;
    }
    // Whole frames (wsFrame), written as they are: ws's own sends (replies, pings) go through the
    // same socket in call order, so frames never interleave. bufferedAmount counts these bytes.
    (this.socket as unknown as { _socket: Duplex })._socket.write(bytes);
    return true;
  }

  reply(body: object): void {
    if (!this.closed) this.socket.send(JSON.stringify(body));
  }

  /** One request spent from the per-second allowance; false when there is none left. */
  spend(): boolean {
    const now = Date.now();
    const rate = this.limits.maxMessagesPerSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Closes with a code; a peer that does not read its close frame is cut off soon after. */
  shut(code: number, reason: string, graceMs = 2_000): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason.slice(0, 120));
    setTimeout(() => this.socket.terminate(), graceMs).unref();
  }
}

export function attachStreamServer(server: Server, options: StreamServerOptions, path = "/ws"): StreamServer {
  const { hub, limits } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const slots = createConnectionSlots({ perIp: limits.maxConnectionsPerIp, total: limits.maxConnections });
  const connections = new Set<Connection>();
  let slowConsumers = 0;

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node stops watching an upgraded socket (no timeout, no error handler): from here it is ours
    // to close, whatever the request was.
    socket.on("error", () => socket.destroy());
    // Every upgrade takes a place before its path is looked at, so none escapes the limits.
    const ip = options.clientIp(request);
    const slot = slots.acquire(ip);
    if (!slot.ok) {
      const limit = slot.refused === "total" ? "on this server" : "per IP";
      return refuse(socket, "429 Too Many Requests", {
        code: "RATE_LIMITED",
        message: `too many WebSocket connections ${limit}`,
      });
    }
    // The raw socket's end gives the place back, whether the handshake was refused or the
    // connection opened and later closed.
    socket.once("close", slot.release);
    // The only upgrade handler of this server (see below): a path it does not serve is nobody's.
    if (pathOf(request.url) !== path)
      return refuse(socket, "404 Not Found", { code: "NOT_FOUND", message: `WebSocket connections go to ${path}` });
    wss.handleUpgrade(request, socket, head, (ws) => {
      const origin = options.publicUrl?.replace(/^http/, "ws") ?? `ws://${request.headers.host ?? "localhost"}`;
      open(new Connection(ws, `${origin}${request.url ?? path}`, ip, limits, () => slowConsumers++));
    });
  };

  const open = (connection: Connection) => {
    connections.add(connection);
    const { socket } = connection;
    socket.on("pong", () => {
      connection.alive = true;
    });
    socket.on("message", (data, isBinary) => {
      if (isBinary) return connection.reply({ error: { code: "INVALID_PARAM", message: "send text frames" } });
      if (!connection.spend()) {
        connection.reply({
          error: { code: "RATE_LIMITED", message: `at most ${limits.maxMessagesPerSecond} requests per second` },
        });
        // A client that keeps flooding is let go: answering it is work too.
        if (++connection.refused > limits.maxMessagesPerSecond * 2)
          connection.shut(CLOSE_TOO_MANY_MESSAGES, "RATE_LIMITED: too many requests");
        return;
      }
      connection.refused = 0;
      void handle(connection, data.toString()).catch((error) => {
        options.log?.(`ws: request failed: ${(error as Error).message}`);
        connection.reply({ error: { code: "UNAVAILABLE", message: "the request could not be served; retry" } });
      });
    });
    socket.on("close", () => {
      connection.closed = true;
      connections.delete(connection);
      for (const stream of connection.streams) hub.unsubscribe(stream, connection);
      if (connection.userId !== undefined) hub.unsubscribe(userStream(connection.userId), connection);
    });
    socket.on("error", () => socket.terminate());
  };

  const handle = async (connection: Connection, text: string) => {
    const parsed = parseClientMessage(text);
    if (!parsed.ok) return connection.reply({ error: parsed.error, id: parsed.id ?? null });
    const { message } = parsed;
    const id = message.id ?? null;
    if (message.method === "LIST_SUBSCRIPTIONS")
      return connection.reply({ result: [...connection.streams, ...(connection.userId ? ["user"] : [])], id });
    if (message.method === "LOGIN") {
      if (options.verifyLogin === undefined)
        return connection.reply({ error: { code: "UNAVAILABLE", message: "logins are not served here" }, id });
      try {
        options.loginGuard?.checkClient(connection.ip);
      } catch (error) {
        if (error instanceof ApiError)
          return connection.reply({ error: { code: error.code, message: error.message }, id });
        throw error;
      }
      const result = await options.verifyLogin(message.params, connection.url);
      if (!result.ok) {
        // Only a refused credential counts; an exchange that cannot answer (UNAVAILABLE) does not.
        const limited =
          result.error.code === "UNAUTHORIZED" ? options.loginGuard?.failClient(connection.ip) : undefined;
        return connection.reply({
          error: limited ? { code: limited.code, message: limited.message } : result.error,
          id,
        });
      }
      if (connection.userId !== undefined) hub.unsubscribe(userStream(connection.userId), connection);
      connection.userId = result.userId;
      // A ticket's login has no key to revoke: it ends when the connection does.
      connection.loginKey = "apiKey" in message.params ? message.params.apiKey : undefined;
      const stream = userStream(result.userId);
      hub.subscribe(stream, connection);
      try {
        await options.userStreamReady?.(stream);
      } catch {
        if (connection.userId === result.userId) {
          hub.unsubscribe(stream, connection);
          connection.userId = undefined;
        }
        return connection.reply({
          error: { code: "UNAVAILABLE", message: "the user stream could not be set up; retry" },
          id,
        });
      }
      return connection.reply({ result: { stream: "user", userId: result.userId }, id });
    }
    for (const stream of message.params) {
      const error = streamError(stream, options.isPair);
      if (error) return connection.reply({ error, id });
    }
    if (message.method === "SUBSCRIBE") {
      const fresh = message.params.filter((s) => !connection.streams.has(s));
      if (connection.streams.size + new Set(fresh).size > limits.maxSubscriptions)
        return connection.reply({
          error: { code: "INVALID_PARAM", message: `at most ${limits.maxSubscriptions} subscriptions per connection` },
          id,
        });
      for (const stream of fresh) {
        connection.streams.add(stream);
        hub.subscribe(stream, connection);
      }
    } else
      for (const stream of message.params) {
        connection.streams.delete(stream);
        hub.unsubscribe(stream, connection);
      }
    connection.reply({ result: null, id });
  };

  // Dead peers (no pong since the last ping) are dropped; idle ones (nothing subscribed) closed.
  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const connection of connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      if (
        connection.streams.size === 0 &&
        connection.userId === undefined &&
        now - connection.openedAt > limits.idleTimeoutMs
      ) {
        connection.shut(CLOSE_IDLE, "IDLE: nothing subscribed");
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }, limits.pingIntervalMs);
  heartbeat.unref();

  // Node leaves an upgrade nobody answers open for good, so one handler decides for every path.
  if (server.listenerCount("upgrade") > 0)
    throw new Error("this server already handles upgrades: serve every WebSocket path from one handler");
  server.on("upgrade", onUpgrade);
  return {
    path,
    connectionCount: () => connections.size,
    slowConsumers: () => slowConsumers,
    closeAll: (code, reason) => {
      for (const connection of connections) connection.shut(code, reason);
    },
    closeLogins: (publicKey) => {
      let closed = 0;
      for (const connection of connections)
        if (connection.loginKey === publicKey) {
          connection.shut(CLOSE_KEY_REVOKED, "API key revoked");
          closed++;
        }
      return closed;
    },
    loginKeys: () => {
      const keys = new Set<string>();
      for (const connection of connections)
        if (!connection.closed && connection.loginKey !== undefined) keys.add(connection.loginKey);
      return keys;
    },
    bufferedBytes: () => {
      let bytes = 0;
      for (const connection of connections) bytes += connection.socket.bufferedAmount;
      return bytes;
    },
    close: async () => {
      clearInterval(heartbeat);
      server.off("upgrade", onUpgrade);
      for (const connection of connections) connection.shut(1001, "server shutting down");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * Answers a refused upgrade and lets the socket go once the answer is written, or after a second
 * if the peer does not read it: a socket the server refused never stays open on the peer's terms.
 */
function refuse(socket: Duplex, status: string, body: { code: string; message: string }): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  );
  const timer = setTimeout(() => socket.destroy(), 1_000);
  socket.once("close", () => clearTimeout(timer));
}

/** The path of a request target; "" for one that is no path (then no endpoint serves it). */
function pathOf(target: string | undefined): string {
  try {
    return new URL(target ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}

function streamError(stream: string, isPair: (code: string) => boolean): ProtocolError | undefined {
  if (stream === ALL_TICKERS) return undefined;
  const match = MARKET_STREAM.exec(stream);
  if (match === null)
    return {
      code: "INVALID_PARAM",
      message: `unknown stream ${JSON.stringify(stream)}: expected <PAIR>@trade, <PAIR>@depth, <PAIR>@ticker or ${ALL_TICKERS} (pair codes in upper case, e.g. ETH_USDT)`,
    };
  if (!isPair(match[1]!)) return { code: "UNKNOWN_PAIR", message: `unknown currency pair ${match[1]}` };
  return undefined;
}
