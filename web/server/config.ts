import { stat } from "node:fs/promises";
import type { WebEnv } from "../../config/env.ts";
import { type Deployment, deploymentPath, readDeployment } from "../../lib/deployments.ts";

/**
 * What the app reads from `/config.json` at start-up: where the APIs and the chain are, and the
 * contracts of the deployment the platform recorded. The app is built once and configured here,
 * so one build serves any deployment.
 */
export interface WebConfig {
  ecosystemApiUrl: string;
  exchangeApiUrl: string;
  exchangeWsUrl: string;
  rpcUrl: string;
  chainId: number;
  contracts: Deployment["contracts"];
}

/** The URLs a browser reaches, from the platform's configuration (no trailing slash). */
export function endpointsOf(env: WebEnv): Omit<WebConfig, "contracts"> {
  const exchangeApiUrl = trimSlash(env.EXCHANGE_PUBLIC_URL ?? env.EXCHANGE_URL);
  return {
    ecosystemApiUrl: trimSlash(env.API_PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`),
    exchangeApiUrl,
    exchangeWsUrl: `${exchangeApiUrl.replace(/^http/, "ws")}/ws`,
    rpcUrl: trimSlash(env.WEB_RPC_URL ?? env.RPC_URL),
    chainId: env.CHAIN_ID,
  };
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/**
 * `/config.json`'s body, read again when the deployment record changes (`npm start` deploys a
 * fresh chain on every start; a server left running picks up the new addresses). Rejects while
 * the chain has no deployment record.
 */
export function configSource(env: WebEnv, root = process.cwd()): () => Promise<WebConfig> {
  const path = deploymentPath(env.CHAIN_ID, root);
  let cached: { version: string; config: WebConfig } | undefined;
  return async () => {
    const info = await stat(path).catch(() => undefined);
    const version = info ? `${info.mtimeMs}:${info.size}` : "missing";
    if (cached?.version === version) return cached.config;
    // The browser sees this message: it names the chain, not this machine's paths.
    if (!info) throw new Error(`no deployment of chain ${env.CHAIN_ID} yet (npm run deploy records one)`);
    const deployment = await readDeployment(env.CHAIN_ID, root).catch(() => {
      throw new Error(`the deployment record of chain ${env.CHAIN_ID} cannot be read`);
    });
    const config = { ...endpointsOf(env), contracts: deployment.contracts };
    cached = { version, config };
    return config;
  };
}

/**
 * The Content-Security-Policy of every answer: the app's own scripts and styles only, and
 * connections to the origins it is configured with (the APIs, the exchange's WebSocket, the
 * chain). Token logos are any https image, as spawners give them.
 */
export function contentSecurityPolicy(endpoints: Omit<WebConfig, "contracts" | "chainId">): string {
  const connect = new Set(["'self'"]);
  for (const url of [endpoints.ecosystemApiUrl, endpoints.exchangeApiUrl, endpoints.exchangeWsUrl, endpoints.rpcUrl])
    connect.add(new URL(url).origin);
  return [
    "default-src 'self'",
    "script-src 'self'",
    // React and the chart library set style attributes; no inline <script> is ever allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
