// The exchange server process: `node exchange/server/main.ts` (npm start runs it).
import { dirname, join } from "node:path";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedDemoBeforeLoad } from "../demo/reference-data.ts";
import { ensureDemoUsers } from "../demo/users.ts";
import { startExchange } from "./start.ts";

const env = parseEnv(exchangeEnv);
const running = await startExchange(env, {
  // The demo market's reference data on an empty database (npm start sets EXCHANGE_DEMO).
  beforeLoad: env.EXCHANGE_DEMO ? seedDemoBeforeLoad : undefined,
});

if (env.EXCHANGE_DEMO) {
  // Demo users with keys and deposits, kept across restarts while the database knows them.
  const file = env.DEMO_CREDENTIALS ?? join(dirname(env.EXCHANGE_DATA_DIR), "demo-credentials.json");
  try {
    const demo = await ensureDemoUsers(running.exchange, file);
    const what = demo.created.length === 0 ? "kept" : `created ${demo.created.join(", ")}`;
    console.log(`exchange: demo users (${what}); their API keys are in ${demo.file}`);
    for (const entry of demo.credentials)
      console.log(
        `  ${entry.label.padEnd(13)} level ${String(entry.level).padEnd(3)} user ${entry.userId}  key ${entry.publicKey}`,
      );
  } catch (error) {
    console.error("exchange: could not create the demo users", error);
    await running.close();
    process.exit(1);
  }
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (error) => {
        console.error("exchange: error while stopping", error);
        process.exit(1);
      },
    );
  });
}
