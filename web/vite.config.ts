import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * The web app: `npm run build:web` writes static files to web/dist (served by web/server with
 * /config.json); `npm run dev:web` serves it with hot reload against a running platform.
 */

const root = fileURLToPath(new URL(".", import.meta.url));
const repo = fileURLToPath(new URL("..", import.meta.url));

/**
 * `/config.json` in dev: the running platform's web server's (WEB_DEV_CONFIG_URL, default
 * http://127.0.0.1:3000/config.json), or, when none answers, one built from the same environment
 * `npm start` reads (CHAIN_PORT, PORT, EXCHANGE_PORT, CHAIN_ID) and deployments/<CHAIN_ID>.json.
 */
function devConfigJson(): Plugin {
  const upstream = process.env.WEB_DEV_CONFIG_URL ?? "http://127.0.0.1:3000/config.json";
  const fromEnv = () => {
    const chainId = Number(process.env.CHAIN_ID ?? 31337);
    const deployment = JSON.parse(readFileSync(`${repo}deployments/${chainId}.json`, "utf8")) as {
      contracts: Record<string, string>;
    };
    const exchangePort = process.env.EXCHANGE_PORT ?? "8080";
    return {
      ecosystemApiUrl: `http://127.0.0.1:${process.env.PORT ?? "42069"}`,
      exchangeApiUrl: `http://127.0.0.1:${exchangePort}`,
      exchangeWsUrl: `ws://127.0.0.1:${exchangePort}/ws`,
      rpcUrl: `http://127.0.0.1:${process.env.CHAIN_PORT ?? "8545"}`,
      chainId,
      contracts: deployment.contracts,
    };
  };
  return {
    name: "dev-config-json",
    configureServer(server) {
      server.middlewares.use("/config.json", (_req: IncomingMessage, res: ServerResponse) => {
        void (async () => {
          let body: string;
          try {
            const answer = await fetch(upstream, { signal: AbortSignal.timeout(1000) });
            if (!answer.ok) throw new Error(String(answer.status));
            body = await answer.text();
          } catch {
            try {
              body = JSON.stringify(fromEnv());
            } catch (error) {
              res.statusCode = 503;
              res.end(
                JSON.stringify({ code: "UNAVAILABLE", message: `no platform config: ${(error as Error).message}` }),
              );
              return;
            }
          }
          res.setHeader("Content-Type", "application/json");
          res.end(body);
        })();
      });
    },
  };
}

export default defineConfig({
  root,
  plugins: [react(), devConfigJson()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2023",
    sourcemap: false,
  },
  server: { host: "127.0.0.1", port: Number(process.env.WEB_DEV_PORT ?? 5173) },
});
