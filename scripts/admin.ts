/**
 * `npm run admin -- <command>`: operator commands against the running exchange's admin API
 * (create users, issue API keys, credit deposits, read balances and the ledger check).
 * `npm run admin -- --help` lists them; scripts/lib/admin-cli.ts does the work.
 */
import type { z } from "zod";
import { adminEnv, parseEnv } from "../config/env.ts";
import { resolveAdminToken, runAdmin } from "./lib/admin-cli.ts";

let env: z.infer<typeof adminEnv>;
try {
  env = parseEnv(adminEnv);
} catch (error) {
  console.error(`admin: ${(error as Error).message}`);
  process.exit(2);
}
const settled = env;
process.exitCode = await runAdmin(process.argv.slice(2), {
  url: settled.EXCHANGE_URL,
  token: () => resolveAdminToken(settled),
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
