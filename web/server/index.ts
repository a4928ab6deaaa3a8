import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import type { WebEnv } from "../../config/env.ts";
import { localUrl } from "../../lib/local-url.ts";
import { createWebApp } from "./app.ts";
import { configSource, contentSecurityPolicy, endpointsOf } from "./config.ts";
import { staticFiles } from "./static.ts";

export { createWebApp } from "./app.ts";
export type { WebAppOptions } from "./app.ts";
export { configSource, contentSecurityPolicy, endpointsOf } from "./config.ts";
export type { WebConfig } from "./config.ts";
export { pickEncoding, staticFiles } from "./static.ts";
export type { StaticFile, StaticFiles } from "./static.ts";

export interface WebServer {
  /** http://host:port the server answers at (127.0.0.1 when it listens on every address). */
  url: string;
  close(): Promise<void>;
}

/** Serves the built app (env.WEB_DIST_DIR) and /config.json on env.WEB_HOST:env.WEB_PORT. */
export async function startWebServer(env: WebEnv, root = process.cwd()): Promise<WebServer> {
  const app = createWebApp({
    files: staticFiles(resolve(root, env.WEB_DIST_DIR)),
    config: configSource(env, root),
    csp: contentSecurityPolicy(endpointsOf(env)),
    rateLimitPerMinute: env.WEB_RATE_LIMIT_PER_MINUTE,
    trustProxy: env.TRUST_PROXY,
    requestTimeoutMs: env.WEB_REQUEST_TIMEOUT_MS,
  });
  const server = await new Promise<Server>((done, fail) => {
    const started = serve({ fetch: app.fetch, port: env.WEB_PORT, hostname: env.WEB_HOST }, () =>
      done(started as Server),
    );
    started.once("error", fail);
  });
  // A client that sends its request slowly (or never finishes it) holds a socket at most this long.
  server.requestTimeout = env.WEB_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(env.WEB_REQUEST_TIMEOUT_MS, 10_000);
  const { port } = server.address() as AddressInfo;
  return {
    url: localUrl(env.WEB_HOST, port),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
