/**
 * Serialised answers of public reads that are the same for every caller until the pair trades
 * again (/api/deals pages, /api/ohlc ranges, the aggregator's historical_trades): a burst of
 * identical requests costs one read and one JSON encoding, not one each. Entries are keyed by the
 * request's path and query and carry the version they were made at; a reader asks with the
 * current version and misses when it moved. Bounded in entries and bytes; the oldest go first.
 */
export interface ReadCache {
  /** The cached body for `key` at `version`, or a fresh one from `make`, kept for the next caller. */
  get(key: string, version: string, make: () => Promise<unknown>): Promise<Body>;
  readonly size: number;
}

/** UTF-8 JSON, as Hono's c.body takes it. */
export type Body = Uint8Array<ArrayBuffer>;

export interface ReadCacheOptions {
  readonly maxEntries?: number;
  /** Most bytes of bodies kept in all. */
  readonly maxBytes?: number;
  /** Bodies larger than this are answered but not kept. */
  readonly maxEntryBytes?: number;
}

export function createReadCache(options: ReadCacheOptions = {}): ReadCache {
  const maxEntries = options.maxEntries ?? 1_000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
  const entries = new Map<string, { version: string; body: Body }>();
  const encoder = new TextEncoder();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    bytes -= entry.body.length;
  };
  return {
    async get(key, version, make) {
      const hit = entries.get(key);
      if (hit?.version === version) return hit.body;
      const body = encoder.encode(JSON.stringify(await make()));
      drop(key);
      if (body.length <= maxEntryBytes) {
        entries.set(key, { version, body });
        bytes += body.length;
        while (entries.size > maxEntries || bytes > maxBytes) drop(entries.keys().next().value!);
      }
      return body;
    },
    get size() {
      return entries.size;
    },
  };
}
