/**
 * `npm run gen:env`: writes `.env.example` and the configuration table (docs/configuration.md) from config/env.ts.
 * `npm run gen:env -- --check` (part of `npm run lint`) writes nothing and exits 1 naming each file
 * that differs from what config/env.ts generates.
 */
import { readFile, writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { envDocs } from "./lib/env-docs-files.ts";

const check = process.argv.includes("--check");
const drifted: string[] = [];
for (const { path, expected } of await envDocs()) {
  const current = await readFile(path, "utf8").catch(() => "");
  if (current === expected) continue;
  drifted.push(relative(process.cwd(), path));
  if (!check) await writeFile(path, expected);
}
if (check && drifted.length > 0) {
  console.error(`${drifted.join(", ")} differ from config/env.ts: run npm run gen:env`);
  process.exit(1);
}
console.log(drifted.length === 0 ? "env docs up to date" : `wrote ${drifted.join(", ")}`);
