import { z } from "zod";

/**
 * What the web app needs to know about the platform it runs against, fetched at start from
 * `/config.json` on its own origin (the web server builds it from the same environment and
 * `deployments/<chainId>.json` as the rest of the platform; `npm run dev:web` proxies it). One
 * built app then serves any deployment.
 */

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");
const httpUrl = z.string().regex(/^https?:\/\/\S+$/, "must be an http(s) URL");
const wsUrl = z.string().regex(/^wss?:\/\/\S+$/, "must be a ws(s) URL");

export const webConfigSchema = z.object({
  /** The ecosystem API (Ponder's server): /api/agents/*, /api/launchpad/* and their streams. */
  ecosystemApiUrl: httpUrl,
  /** The exchange's HTTP API ({base_url}). */
  exchangeApiUrl: httpUrl,
  /** The exchange's WebSocket streams, `ws://…/ws`. */
  exchangeWsUrl: wsUrl,
  /** JSON-RPC endpoint of the chain, for reads and for the wallet's "add network". */
  rpcUrl: httpUrl,
  chainId: z.number().int().positive(),
  /** A block explorer for the chain (transactions at `<explorerUrl>/tx/<hash>`); none on the local chain. */
  explorerUrl: httpUrl.optional(),
  /**
   * `contracts` of deployments/<chainId>.json (lib/deployments.ts), keyed by contract name. The
   * app writes to AgentSpawner, WorkerVoting and Booster and reads AgentRegistry; the pools and
   * tokens it finds through the API.
   */
  contracts: z.looseObject({
    AgentSpawner: address,
    AgentRegistry: address,
    WorkerVoting: address,
    Booster: address,
    ActionLog: address.optional(),
    MockStableToken: address.optional(),
    WrappedNative: address.optional(),
  }),
});

export type WebConfig = z.infer<typeof webConfigSchema>;

/** Parses a /config.json body, or throws one error naming every bad field. */
export function parseWebConfig(body: unknown): WebConfig {
  const result = webConfigSchema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  throw new Error(`Invalid /config.json: ${problems.join("; ")}`);
}

export async function loadWebConfig(fetchImpl: typeof fetch = fetch): Promise<WebConfig> {
  const response = await fetchImpl("/config.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`/config.json answered ${response.status}`);
  return parseWebConfig(await response.json());
}
