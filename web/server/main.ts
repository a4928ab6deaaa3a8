/**
 * `node web/server/main.ts`: the web app's server, as `npm start` runs it (WEB_PORT, default 3000).
 * SIGTERM or SIGINT closes it.
 */
import { parseEnv, webEnv } from "../../config/env.ts";
import { startWebServer } from "./index.ts";

const env = parseEnv(webEnv);
const server = await startWebServer(env);
console.log(`web: serving ${env.WEB_DIST_DIR} at ${server.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
