import { setTimeout as sleep } from "node:timers/promises";
import type { ListingOutcome, TokenToList } from "../../application/index.ts";

// The listing follower: lists every agent token the ecosystem API has indexed. It follows the
// API's spawn events (`GET /api/launchpad/stream?types=spawn`, server-sent events: one request
// of the API's per-IP quota per connection, not one per poll), and each time it (re)connects it
// reads the token list `GET /api/launchpad/tokens?sort=recent` from the newest page until a page
// holds a token it has seen (every page on the first pass and after a failure), so a restart, a
// spawn made while the exchange or the stream was down, and one made while it connected are
// covered. Tokens are listed oldest first. Listing is idempotent (Exchange.listToken), so seeing a
// token twice lists it once. Without the stream (an API that refuses it) the list is polled.
// Every call has a timeout (the stream: its heartbeats) and a bounded answer; a failing API or
// database is logged and retried with backoff, never a crash.

export interface ListingFollowerOptions {
  /** The ecosystem API's base URL (ECOSYSTEM_API_URL). */
  readonly apiUrl: string;
  readonly listToken: (token: TokenToList) => Promise<ListingOutcome>;
  readonly log: (message: string) => void;
  /** Between polls of the newest page, when the spawn stream cannot be opened. */
  readonly pollMs?: number;
  /** The spawn stream is dropped (and reopened) after this long without a byte (heartbeats come every 15 s). */
  readonly idleMs?: number;
  /** Per HTTP call. */
  readonly timeoutMs?: number;
  /** Retry delay after a failure: doubling from min to max. */
  readonly backoffMs?: { readonly min: number; readonly max: number };
  /** Tokens per page asked for (the API allows up to 100). */
  readonly pageSize?: number;
  /** At most this many pages are read in one pass (bounds a pass at pageSize x maxPages tokens). */
  readonly maxPages?: number;
  readonly fetch?: typeof fetch;
}

export const LISTING_FOLLOWER_DEFAULTS = {
  pollMs: 5_000,
  idleMs: 45_000,
  timeoutMs: 5_000,
  backoffMs: { min: 500, max: 10_000 },
  pageSize: 100,
  maxPages: 1_000,
} as const;

/** The largest answer read (a page of 100 tokens is about 40 kB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The largest server-sent event read (a spawn event is under 1 kB). */
const MAX_EVENT_CHARS = 256 * 1024;

export interface ListingFollower {
  /** Resolves once the first full pass has listed every token (tests; start-up does not wait). */
  readonly caughtUp: Promise<void>;
  /** Stops polling and waits for the pass in progress to end. */
  close(): Promise<void>;
}

interface ApiToken {
  readonly address: string;
  readonly symbol: string;
  readonly name: string;
}

export function startListingFollower(options: ListingFollowerOptions): ListingFollower {
  const settings = { ...LISTING_FOLLOWER_DEFAULTS, ...options };
  const doFetch = options.fetch ?? fetch;
  const stop = new AbortController();
  /** Tokens settled (listed, already listed or refused), by lower-case address. */
  const settled = new Set<string>();
  let caughtUp!: () => void;
  const caughtUpPromise = new Promise<void>((resolve) => (caughtUp = resolve));

  const readPage = async (page: number): Promise<{ items: ApiToken[]; totalItems: number }> => {
    const url = new URL("/api/launchpad/tokens", settings.apiUrl);
    url.search = new URLSearchParams({
      sort: "recent",
      page: String(page),
      pageSize: String(settings.pageSize),
    }).toString();
    const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(settings.timeoutMs)]);
    const response = await doFetch(url, { signal, headers: { accept: "application/json" } });
    const text = await boundedText(response, MAX_BODY_BYTES);
    if (!response.ok) throw new Error(`GET ${url.pathname} answered ${response.status}: ${text.slice(0, 200)}`);
    return parsePage(text);
  };

  /** Lists tokens oldest first; a token refused or listed is settled, a failure throws (retried). */
  const listAll = async (tokens: readonly ApiToken[]) => {
    for (const token of [...tokens].reverse()) {
      const key = token.address.toLowerCase();
      if (settled.has(key) || stop.signal.aborted) continue;
      await options.listToken({ symbol: token.symbol, name: token.name, contractAddress: token.address });
      settled.add(key);
    }
  };

  /** Pages from the newest until one holds a settled token (or all of them on `full`). */
  const pass = async (full: boolean) => {
    const fresh: ApiToken[] = [];
    for (let page = 1; page <= settings.maxPages && !stop.signal.aborted; page++) {
      const { items, totalItems } = await readPage(page);
      const unseen = items.filter((token) => !settled.has(token.address.toLowerCase()));
      fresh.push(...unseen);
      const last = items.length < settings.pageSize || page * settings.pageSize >= totalItems;
      if (last || (!full && unseen.length < items.length)) break;
    }
    await listAll(fresh);
  };

  /** The spawn stream, its headers read; null when the API refuses it (then the list is polled). */
  const openStream = async (): Promise<{ response: Response; abort: AbortController } | null> => {
    const url = new URL("/api/launchpad/stream", settings.apiUrl);
    url.search = "types=spawn";
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`no answer within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    try {
      const signal = AbortSignal.any([stop.signal, abort.signal]);
      const response = await doFetch(url, { signal, headers: { accept: "text/event-stream" } });
      if (response.ok && response.body !== null) return { response, abort };
      await response.body?.cancel();
      if (!streamRefusedLogged)
        options.log(
          `exchange: listing follower: GET ${url.pathname} answered ${response.status}; polling the token list every ${settings.pollMs} ms`,
        );
      streamRefusedLogged = true;
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
  let streamRefusedLogged = false;

  /** Lists the spawns the stream carries until it ends (resolves) or fails or goes silent (throws). */
  const follow = async ({ response, abort }: { response: Response; abort: AbortController }) => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => abort.abort(new Error(`the spawn stream was silent for ${settings.idleMs} ms`)),
        settings.idleMs,
      );
    };
    try {
      arm();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        arm();
        buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const token = spawnOf(block);
          if (token !== null) await listAll([token]);
        }
        if (buffer.length > MAX_EVENT_CHARS) throw new Error(`a spawn stream event is longer than ${MAX_EVENT_CHARS}`);
      }
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  };

  const run = (async () => {
    let full = true;
    let delay: number = settings.backoffMs.min;
    let failing = false;
    while (!stop.signal.aborted) {
      let stream: { response: Response; abort: AbortController } | null = null;
      try {
        // Opened before the list is read, so a spawn made meanwhile is in one or the other.
        stream = await openStream();
        await pass(full);
        caughtUp();
        if (failing) options.log("exchange: listing follower: the ecosystem API answers again");
        full = false;
        failing = false;
        delay = settings.backoffMs.min;
        if (stream !== null) await follow(stream);
        // The stream ended (the API restarted) or there is none: read the list again shortly.
        await sleep(stream === null ? settings.pollMs : settings.backoffMs.min, undefined, {
          signal: stop.signal,
        }).catch(() => undefined);
      } catch (error) {
        stream?.abort.abort();
        if (stop.signal.aborted) break;
        failing = true;
        // The next pass reads every page again, whatever this one had reached.
        full = true;
        options.log(`exchange: listing follower: ${(error as Error)?.message ?? error}; retrying in ${delay} ms`);
        await sleep(delay, undefined, { signal: stop.signal }).catch(() => undefined);
        delay = Math.min(delay * 2, settings.backoffMs.max);
      }
    }
  })();

  return {
    caughtUp: caughtUpPromise,
    close: async () => {
      stop.abort();
      await run;
    },
  };
}

/** The answer's text, refused past `max` bytes. */
async function boundedText(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parsePage(text: string): { items: ApiToken[]; totalItems: number } {
  const body = JSON.parse(text) as { items?: unknown; totalItems?: unknown };
  if (!Array.isArray(body.items) || typeof body.totalItems !== "number")
    throw new Error("the token list answer has no items or totalItems");
  const items = body.items.map((item: Record<string, unknown>) => {
    if (typeof item?.address !== "string" || typeof item.symbol !== "string" || typeof item.name !== "string")
      throw new Error(`a token list item lacks address, symbol or name: ${JSON.stringify(item).slice(0, 200)}`);
    return { address: item.address, symbol: item.symbol, name: item.name };
  });
  return { items, totalItems: body.totalItems };
}

/** The token of a `spawn` event block of the stream; null for other blocks (comments, other events). */
function spawnOf(block: string): ApiToken | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (event !== "spawn" || data.length === 0) return null;
  const token = (JSON.parse(data.join("\n")) as { token?: Record<string, unknown> }).token;
  if (typeof token?.address !== "string" || typeof token.symbol !== "string" || typeof token.name !== "string")
    throw new Error(`a spawn event lacks token.address, symbol or name: ${data.join("").slice(0, 200)}`);
  return { address: token.address, symbol: token.symbol, name: token.name };
}
