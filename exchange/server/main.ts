// The exchange server process: `node exchange/server/main.ts` (npm start runs it).
import { dirname, join } from "node:path";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedDemoBeforeLoad } from "../demo/reference-data.ts";
import type { DemoCredential } from "../demo/credentials.ts";
import { creditDemoDeposits, ensureDemoUsers } from "../demo/users.ts";
import { startExchange } from "./start.ts";

const env = parseEnv(exchangeEnv);
/** The demo users, once they exist; a token listed before then is credited by the catch-up below. */
let demoUsers: DemoCredential[] | undefined;
/** Demo deposits one after another, so a listing's and the catch-up's never race. */
let crediting: Promise<unknown> = Promise.resolve();
const creditDemo = (currencies?: string[]) => {
  const users = demoUsers;
  if (users === undefined) return Promise.resolve();
  const run = crediting.then(async () => {
    const credited = await creditDemoDeposits(running.exchange, users, currencies);
    if (credited.length > 0) console.log(`exchange: demo deposits in listed tokens: ${credited.join(", ")}`);
  });
  crediting = run.catch(() => undefined);
  return run;
};
const running = await startExchange(env, {
  // The demo market's base (USDT, ETH, ETH_USDT) on an empty database (npm start sets
  // EXCHANGE_DEMO); its agent tokens are the chain's, listed as the ecosystem API indexes them.
  beforeLoad: env.EXCHANGE_DEMO ? seedDemoBeforeLoad : undefined,
  // The demo users trade the listed tokens too: each gets its deposit in them.
  onListed: env.EXCHANGE_DEMO ? (currency) => creditDemo([currency]) : undefined,
});

if (env.EXCHANGE_DEMO) {
  // Demo users with keys and deposits, kept across restarts while the database knows them.
  const file = env.DEMO_CREDENTIALS ?? join(dirname(env.EXCHANGE_DATA_DIR), "demo-credentials.json");
  try {
    const demo = await ensureDemoUsers(running.exchange, file);
    demoUsers = demo.credentials;
    // Tokens listed while the users were being created, or while the exchange was down.
    await creditDemo();
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
