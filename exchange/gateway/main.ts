// `npm run gateway`: one WebSocket gateway process (see start.ts); run as many as needed.
import { gatewayEnv, parseEnv } from "../../config/env.ts";
import { startGateway } from "./start.ts";

const gateway = await startGateway(parseEnv(gatewayEnv));
console.log(`gateway: serving ${gateway.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    void gateway.close().finally(() => process.exit(0));
  });
