/**
 * A thread holding a share of the bench's WebSocket clients: it opens them, subscribes
 * each, and times every event from its `E` (the server's publish time, ms) to Date.now() on
 * arrival. Events are not parsed: `"E":` is found in the raw bytes, so the client side costs as
 * little as it can and the numbers are mostly the server's (its busy share is reported anyway).
 */
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import WebSocket from "ws";
import type { ThreadReply, ThreadRequest } from "./clients.ts";
import { Histogram } from "./histogram.ts";
import { openRaw, type RawHandlers, type RawSocket } from "./raw-socket.ts";

type Client = RawSocket | WebSocket;
const impl: "raw" | "ws" = workerData.impl;

const E_KEY = Buffer.from('"E":');
const DIGIT_0 = 48;

let clients: Client[] = [];
/** Resolvers of closeAll() waiting for a client's close. */
const closedAt = new Map<Client, () => void>();
/** Clients closed already (by the server, or by closeAll). */
const gone = new Set<Client>();
let perClient = new Uint32Array(0);
let histogram = new Histogram();
let window = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
let lastAt = 0;
let closedBy = new Map<number, number>();
let closing = false;
let elu = performance.eventLoopUtilization();
/** Event-loop utilisation over the last window, once it has ended. */
let busy: number | undefined;

/** The integer after `"E":` in bytes [start, end), or -1 when the frame is not an event (an answer). */
function eventTime(data: Buffer, start: number, end: number): number {
  const at = data.indexOf(E_KEY, start);
  if (at < 0 || at >= end) return -1;
  let value = 0;
  for (let i = at + E_KEY.length; i < end; i++) {
    const digit = data[i]! - DIGIT_0;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

/** Either client: `ws` (the reference) or raw frames (raw-socket.ts, the default: cheaper). */
function dial(url: string, handlers: RawHandlers): Promise<Client> {
  if (impl === "raw") return openRaw(url, handlers);
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    socket.once("unexpected-response", (_request, response) =>
      reject(new Error(`upgrade refused: ${response.statusCode}`)),
    );
    socket.on("error", reject); // after the open, the close that follows is what counts
    socket.once("open", () => resolve(socket));
    socket.on("message", (data: Buffer) => handlers.onText(data, 0, data.length));
    socket.on("close", (code) => handlers.onClose(code));
  });
}

function open(index: number, url: string, streams: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let client: Client | undefined;
    let subscribed = false;
    const timer = setTimeout(() => fail(new Error("no SUBSCRIBE answer within 30 s")), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      client?.terminate();
      reject(error);
    };
    const handlers: RawHandlers = {
      onText(data, start, end) {
        const now = Date.now();
        const sentAt = eventTime(data, start, end);
        if (sentAt >= 0) {
          lastAt = now;
          if (sentAt >= window.from && sentAt <= window.to) {
            histogram.add(now - sentAt);
            perClient[index]!++;
          }
          return;
        }
        if (subscribed) return;
        const answer = data.toString("utf8", start, end);
        if (!answer.startsWith('{"result":null')) return fail(new Error(`SUBSCRIBE refused: ${answer.slice(0, 200)}`));
        subscribed = true;
        clearTimeout(timer);
        clients[index] = client!;
        resolve();
      },
      onClose(code) {
        if (!subscribed) return fail(new Error(`closed (${code}) before the SUBSCRIBE answer`));
        gone.add(client!);
        // While closing, ours end in 1000 (or 1006 once closeAll gives up waiting); any other
        // code is the server's, read late behind a backlog (a slow consumer's 4008).
        if (!closing || (code !== 1000 && code !== 1006)) closedBy.set(code, (closedBy.get(code) ?? 0) + 1);
        closedAt.get(client!)?.();
      },
    };
    dial(url, handlers).then((opened) => {
      client = opened;
      client.send(JSON.stringify({ method: "SUBSCRIBE", params: streams, id: 1 }));
    }, fail);
  });
}

async function connect(targets: string[], streams: string[], batch: number) {
  clients = new Array(targets.length);
  gone.clear();
  perClient = new Uint32Array(targets.length);
  closedBy = new Map();
  closing = false;
  const errors: string[] = [];
  for (let from = 0; from < targets.length; from += batch) {
    const opened = await Promise.allSettled(
      targets.slice(from, from + batch).map((url, i) => open(from + i, url, streams)),
    );
    for (const r of opened) if (r.status === "rejected") errors.push((r.reason as Error).message);
  }
  return { opened: targets.length - errors.length, errors: errors.slice(0, 5), failed: errors.length };
}

async function closeAll() {
  closing = true;
  const closed = clients
    .filter((client) => client !== undefined && !gone.has(client))
    .map(
      (client) =>
        new Promise<void>((resolve) => {
          closedAt.set(client, resolve);
          client.close();
          setTimeout(() => client.terminate(), 2_000).unref();
        }),
    );
  await Promise.all(closed);
  closedAt.clear(); // `clients` and `gone` stay for stats() until the next connect
}

function stats(): ThreadReply & { op: "stats" } {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  // Only clients that subscribed (a failed one left a hole in `clients`).
  clients.forEach((_, i) => {
    min = Math.min(min, perClient[i]!);
    max = Math.max(max, perClient[i]!);
  });
  return {
    op: "stats",
    histogram: { counts: histogram.counts, count: histogram.count, max: histogram.max },
    clients: Number.isFinite(min) ? clients.filter(Boolean).length : 0,
    perClientMin: Number.isFinite(min) ? min : 0,
    perClientMax: max,
    lastAt,
    closedBy: Object.fromEntries(closedBy),
    busy: busy ?? performance.eventLoopUtilization(elu).utilization,
  };
}

parentPort!.on("message", async (request: ThreadRequest) => {
  let reply: ThreadReply;
  switch (request.op) {
    case "connect":
      reply = { op: "connect", ...(await connect(request.targets, request.streams, request.batch)) };
      break;
    case "window":
      // A new window starts counting afresh; moving only its end keeps what was counted.
      if (request.from !== window.from) {
        histogram = new Histogram();
        perClient.fill(0);
        busy = undefined;
        // The thread's load over the window itself, not the drain after it.
        setTimeout(() => (elu = performance.eventLoopUtilization()), Math.max(0, request.from - Date.now()));
        setTimeout(
          () => (busy = performance.eventLoopUtilization(elu).utilization),
          Math.max(0, request.to - Date.now()),
        );
      }
      window = { from: request.from, to: request.to };
      reply = { op: "window" };
      break;
    case "stats":
      reply = stats();
      break;
    case "close":
      await closeAll();
      reply = { op: "close" };
      break;
  }
  parentPort!.postMessage({ id: request.id, ...reply });
});
