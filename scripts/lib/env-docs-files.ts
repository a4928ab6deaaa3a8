import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as envModule from "../../config/env.ts";
import { collectEnv, renderEnvExample, renderTable, withTable } from "./env-docs.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The two generated files, each with the content config/env.ts gives it. */
export async function envDocs(root = ROOT): Promise<{ path: string; expected: string }[]> {
  const source = await readFile(`${root}config/env.ts`, "utf8");
  const vars = collectEnv(envModule, source);
  const readme = await readFile(`${root}docs/configuration.md`, "utf8");
  return [
    { path: `${root}.env.example`, expected: renderEnvExample(vars) },
    { path: `${root}docs/configuration.md`, expected: withTable(readme, renderTable(vars)) },
  ];
}
