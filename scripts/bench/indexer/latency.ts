import { percentile } from "./stats.ts";

export interface Probe {
  name: string;
  path: string;
  /** Items a correct answer must hold, so a fast 404 or empty page is never reported as fast. */
  expectItems?: number;
  /** The probe whose p99 this one is judged against, and the allowed ratio. */
  baseline?: { name: string; maxRatio: number };
}

export type ProbeResult =
  | { probe: Probe; ok: true; samples: number; p50: number; p99: number; totalItems?: number }
  | { probe: Probe; ok: false; error: string };

interface Page {
  items?: unknown[];
  totalItems?: number;
}

/** Timed requests read the body but skip parsing it: the client's work is not the server's latency. */
async function get(url: string, parse = false): Promise<{ status: number; body: Page | undefined }> {
  const response = await fetch(url);
  const text = await response.text();
  let body: Page | undefined;
  try {
    body = parse ? (JSON.parse(text) as Page) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** The first answer must be a correct one, so a fast 404 or short page is never reported as fast. */
async function check(url: string, probe: Probe): Promise<{ error: string } | { totalItems?: number }> {
  const first = await get(url, true).catch(() => ({ status: 0, body: undefined }));
  if (first.status !== 200) return { error: first.status ? `HTTP ${first.status}` : "no answer" };
  const items = first.body?.items?.length;
  if (probe.expectItems !== undefined && items !== probe.expectItems) {
    return { error: `expected ${probe.expectItems} items, got ${items ?? "no items array"}` };
  }
  return { totalItems: first.body?.totalItems };
}

/**
 * One request at a time (latency, not throughput: no queueing in the numbers), after `warmup`
 * unmeasured rounds that fill the database's and the runtime's caches. Probes take turns, one
 * request each per round in a rotating order, so a burst of load from outside (or a GC pause)
 * hits every probe alike and the ratios between them stay fair. Times are wall-clock from
 * request to the last byte of the body, in milliseconds.
 */
export async function measureAll(
  base: string,
  probes: Probe[],
  samples: number,
  warmup: number,
): Promise<ProbeResult[]> {
  const results = new Map<Probe, ProbeResult>();
  const live: { probe: Probe; url: string; times: number[]; totalItems?: number; error?: string }[] = [];
  for (const probe of probes) {
    const url = `${base}${probe.path}`;
    const checked = await check(url, probe);
    if ("error" in checked) results.set(probe, { probe, ok: false, error: checked.error });
    else live.push({ probe, url, times: [], totalItems: checked.totalItems });
  }
  for (let round = 0; round < warmup + samples && live.length > 0; round++) {
    for (let i = 0; i < live.length; i++) {
      const entry = live[(round + i) % live.length];
      if (entry.error) continue;
      const start = performance.now();
      const { status } = await get(entry.url);
      if (round >= warmup) entry.times.push(performance.now() - start);
      if (status !== 200) entry.error = `HTTP ${status} while sampling`;
    }
  }
  for (const { probe, times, totalItems, error } of live) {
    const p = (q: number) => percentile(times, q);
    results.set(
      probe,
      error
        ? { probe, ok: false, error }
        : { probe, ok: true, samples: times.length, p50: p(50), p99: p(99), totalItems },
    );
  }
  return probes.map((probe) => results.get(probe)!);
}
