import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "node:http";
import { signRequest } from "../../../exchange/adapters/auth/index.ts";
import { mulberry32 } from "../../../lib/random.ts";
import { type Credentials, SigningClient } from "../../../support/exchange/signing-client.ts";
import { ADMIN_TOKEN } from "./services.ts";

/**
 * Signed orders over HTTP at a steady rate, in cycles of four: two makers rest a bid below and an
 * ask above a fixed mid, and two takers send an IOC buy and an IOC sell through the band. Every
 * order is the same size, so each IOC fills exactly one resting order: half the orders trade,
 * the book keeps the size it was prefilled to, and nothing rests forever at a growing count.
 * The sender is open-loop at the target rate with a cap on orders awaiting an answer: a server
 * that cannot keep up shows as a lower achieved rate, not as a queue growing in this process.
 */

const MID_TICKS = 5000; // 0.5000 USDT; ALPHA_USDT prices have 4 digits
const BAND_TICKS = 20; // makers rest within 20 ticks of the mid, takers reach 25
const AMOUNT = "10"; // 5 USDT a trade: above the pair's minimum quote amount
const PREFILL = 40; // resting orders per side before any run

export interface Traders {
  readonly makers: Credentials[];
  readonly takers: Credentials[];
}

const price = (ticks: number) => (ticks / 10_000).toFixed(4);

/** Two makers and two takers with ample balances, and the book prefilled on both sides. */
export async function setUpTraders(base: string, pair: string, seed: number): Promise<Traders> {
  const admin = new SigningClient(base, ADMIN_TOKEN);
  const [baseCode, quoteCode] = pair.split("_") as [string, string];
  const deposits = { [baseCode]: "100000000", [quoteCode]: "100000000" };
  const traders = { makers: [] as Credentials[], takers: [] as Credentials[] };
  for (let i = 0; i < 2; i++) traders.makers.push(await admin.user(0, deposits));
  for (let i = 0; i < 2; i++) traders.takers.push(await admin.user(0, deposits));
  const flow = new OrderFlow(base, pair, traders, seed, 16);
  const random = mulberry32(seed ^ 0x5eed);
  const prefill: Promise<void>[] = [];
  for (let i = 0; i < PREFILL * 2; i++) {
    const isBid = i % 2 === 0;
    const ticks = MID_TICKS + (isBid ? -1 : 1) * (1 + Math.floor(random() * BAND_TICKS));
    prefill.push(flow.send(traders.makers[i % 2]!, { isBid, price: price(ticks) }));
  }
  await Promise.all(prefill);
  if (flow.ok !== PREFILL * 2) throw new Error(`prefill: ${JSON.stringify(flow.byStatus)}`);
  return traders;
}

export class OrderFlow {
  private readonly url: URL;
  private readonly pair: string;
  private readonly traders: Traders;
  private readonly random: () => number;
  private readonly maxInFlight: number;
  private readonly agent: Agent;
  /** Answered 2xx (an IOC that found nothing is still a 201). */
  ok = 0;
  /** Answers by HTTP status; 0 is a network error. */
  readonly byStatus: Record<number, number> = {};
  sent = 0;
  private inFlight = 0;
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(base: string, pair: string, traders: Traders, seed: number, maxInFlight: number) {
    this.url = new URL("/api/orders", base);
    this.pair = pair;
    this.traders = traders;
    this.random = mulberry32(seed);
    this.maxInFlight = maxInFlight;
    this.agent = new Agent({ keepAlive: true, maxSockets: maxInFlight });
  }

  /** Starts sending `rate` orders a second until stop(). */
  start(rate: number): void {
    this.running = true;
    this.loop = this.pace(rate);
  }

  /** Stops sending and waits for every answer. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    while (this.inFlight > 0) await sleep(5);
  }

  close(): void {
    this.agent.destroy();
  }

  private async pace(rate: number) {
    const began = performance.now();
    let slot = 0;
    while (this.running) {
      const due = Math.floor(((performance.now() - began) * rate) / 1000);
      // Never more than a cap's worth behind: slots older than that are dropped, not burst later.
      if (due - slot > this.maxInFlight) slot = due - this.maxInFlight;
      while (slot < due && this.inFlight < this.maxInFlight) this.next(slot++);
      await sleep(2);
    }
  }

  private next(slot: number) {
    const { makers, takers } = this.traders;
    const turn = slot % 4;
    const who = (slot >> 2) % 2;
    const offset = 1 + Math.floor(this.random() * BAND_TICKS);
    if (turn === 0) void this.send(makers[who]!, { isBid: true, price: price(MID_TICKS - offset) });
    else if (turn === 1) void this.send(makers[who]!, { isBid: false, price: price(MID_TICKS + offset) });
    else {
      const isBid = turn === 2;
      const reach = price(MID_TICKS + (isBid ? 1 : -1) * (BAND_TICKS + 5));
      void this.send(takers[who]!, { isBid, price: reach, timeInForce: "IOC" });
    }
  }

  send(who: Credentials, order: { isBid: boolean; price: string; timeInForce?: "IOC" }): Promise<void> {
    const body = JSON.stringify({ currencyPairCode: this.pair, type: "limit", amount: AMOUNT, ...order });
    const headers = {
      ...signRequest({
        publicKey: who.publicKey,
        privateKey: who.privateKey,
        method: "POST",
        url: this.url.href,
        body,
      }),
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    };
    this.inFlight++;
    this.sent++;
    return new Promise<number>((resolve) => {
      const req = request(this.url, { method: "POST", headers, agent: this.agent }, (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", () => resolve(0));
      });
      req.once("error", () => resolve(0));
      req.end(body);
    }).then((status) => {
      this.inFlight--;
      this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
      if (status >= 200 && status < 300) this.ok++;
    });
  }
}
