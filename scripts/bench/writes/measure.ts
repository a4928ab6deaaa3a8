import { setTimeout as sleep } from "node:timers/promises";
import type { Job } from "./fixtures.ts";
import type { Writer } from "./paths.ts";

/** One write's timing, in performance.now() ms. */
export interface Sample {
  readonly job: Job;
  readonly startedAt: number;
  readonly answeredAt: number;
  /** The key the read API shows it under; undefined when the write failed. */
  readonly key: string | undefined;
  readonly error?: string;
}

export interface RoundResult {
  readonly samples: Sample[];
  /** First request sent to last answer received. */
  readonly wallMs: number;
}

/** Runs `jobs` through `write` with `concurrency` in flight; a failed write is recorded, not thrown. */
export async function runRound(jobs: readonly Job[], concurrency: number, write: Writer): Promise<RoundResult> {
  const samples: Sample[] = [];
  let next = 0;
  const began = performance.now();
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const startedAt = performance.now();
      try {
        const key = await write(job);
        samples.push({ job, startedAt, answeredAt: performance.now(), key });
      } catch (error) {
        samples.push({
          job,
          startedAt,
          answeredAt: performance.now(),
          key: undefined,
          error: (error as Error).message.split("\n")[0]!.slice(0, 300),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return { samples, wallMs: performance.now() - began };
}

/**
 * One poller per kind of write (not one per write, which would load the API in proportion to
 * the concurrency): it GETs a read endpoint every `intervalMs` and records when each key first
 * shows, at the time the answer arrived (an upper bound of when it became visible). It polls only
 * while its kind is measured (`watch` to `waitAll`'s end): the observer's own reads run on the
 * API's thread, so a poller left running while the other kind is measured, or between rounds,
 * loads the API path and not the direct one (two pollers at 25 ms were 80 reads/s of 100 rows).
 */
export class Visibility {
  private readonly seen = new Map<string, number>();
  private running = true;
  private watching = false;
  private readonly loop: Promise<void>;
  polls = 0;
  pollErrors = 0;

  constructor(url: () => string, keysIn: (body: any) => string[], intervalMs: number) {
    this.loop = (async () => {
      while (this.running) {
        const sent = performance.now();
        if (!this.watching) {
          await sleep(intervalMs);
          continue;
        }
        try {
          const response = await fetch(url());
          const body = await response.json();
          const at = performance.now();
          this.polls++;
          if (response.ok) for (const key of keysIn(body)) if (!this.seen.has(key)) this.seen.set(key, at);
        } catch {
          this.pollErrors++;
        }
        const wait = intervalMs - (performance.now() - sent);
        if (wait > 0) await sleep(wait);
      }
    })();
  }

  firstSeen(key: string): number | undefined {
    return this.seen.get(key);
  }

  /** Starts polling (before a round's first write). */
  watch(): void {
    this.watching = true;
  }

  /** Resolves once every key has shown, then stops polling; throws after `timeoutMs`, naming how many have not. */
  async waitAll(keys: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const missing = keys.filter((k) => !this.seen.has(k));
      if (missing.length === 0) {
        this.watching = false;
        return;
      }
      if (performance.now() > deadline)
        throw new Error(`${missing.length} writes not visible in the read API after ${timeoutMs} ms: ${missing[0]}...`);
      await sleep(20);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
