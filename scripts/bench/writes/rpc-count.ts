import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fixed, table } from "../indexer/table.ts";

/**
 * BENCH_WRITES_COUNT_RPC: a JSON-RPC proxy in front of the chain for Ponder only (its indexing and
 * its relayer), counting calls by method. The direct path talks to the chain itself, so during a
 * direct round the proxy sees Ponder's indexing alone; during an API round, indexing (the same one
 * block per write) plus the relayer. The difference per write is what the API adds on the chain.
 * The proxy costs a hop, so a counting run is for the breakdown, not for the throughput target.
 */
export class RpcCounter {
  private readonly counts = new Map<string, number>();
  private readonly server: Server;
  private readonly target: string;
  url = "";

  constructor(target: string) {
    this.target = target;
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        try {
          const parsed = JSON.parse(body);
          for (const call of Array.isArray(parsed) ? parsed : [parsed])
            this.counts.set(call.method, (this.counts.get(call.method) ?? 0) + 1);
        } catch {
          // not JSON: forward as it is
        }
        try {
          const answer = await fetch(this.target, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          res.writeHead(answer.status, { "content-type": "application/json" });
          res.end(await answer.text());
        } catch (error) {
          res.writeHead(502);
          res.end(String(error));
        }
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  snapshot(): Map<string, number> {
    return new Map(this.counts);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export type Counts = Map<string, number>;

export const delta = (before: Counts, after: Counts): Counts =>
  new Map([...after].map(([method, n]) => [method, n - (before.get(method) ?? 0)]));

export function sum(into: Counts, add: Counts): Counts {
  for (const [method, n] of add) into.set(method, (into.get(method) ?? 0) + n);
  return into;
}

/** Calls per write by method: Ponder in API rounds, in direct rounds, and the difference. */
export function rpcTable(kind: string, api: Counts, apiWrites: number, direct: Counts, directWrites: number): string {
  const methods = [...new Set([...api.keys(), ...direct.keys()])].sort();
  const per = (c: Counts, method: string, n: number) => (c.get(method) ?? 0) / n;
  const rows = methods.map((m) => [
    m,
    fixed(per(api, m, apiWrites), 2),
    fixed(per(direct, m, directWrites), 2),
    fixed(per(api, m, apiWrites) - per(direct, m, directWrites), 2),
  ]);
  const total = (c: Counts, n: number) => [...c.values()].reduce((a, b) => a + b, 0) / n;
  rows.push([
    "all",
    fixed(total(api, apiWrites), 2),
    fixed(total(direct, directWrites), 2),
    fixed(total(api, apiWrites) - total(direct, directWrites), 2),
  ]);
  return table([`Ponder's RPC per ${kind}`, "api rounds", "direct rounds", "api adds"], rows);
}
