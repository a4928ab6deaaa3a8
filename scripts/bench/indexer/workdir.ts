import { copyFileSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";

/**
 * Ponder takes its deployment file (deployments/<chainId>.json), PGlite directory (.data/ponder),
 * .ponder/, generated/ and ponder-env.d.ts from its working directory. Each app runs in a temp
 * dir of symlinks to the project, so none of those ever touch the repo's copies (or another
 * engineer's running app).
 */
const OWN_PER_RUN = new Set([".data", ".ponder", "generated", "deployments", "ponder-env.d.ts", ".git"]);

/** Our app: every top-level entry of the repo except the per-run ones above. */
export function appDir(repo: string, dir: string, deploymentFile: string): string {
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(repo)) {
    if (!OWN_PER_RUN.has(entry)) symlinkSync(join(repo, entry), join(dir, entry));
  }
  withDeployment(dir, deploymentFile);
  return dir;
}

/**
 * The no-op app: the repo's tree as for our app (its config imports indexer/ponder-config.ts by
 * a relative path), with its own config, schema and src/ from scripts/bench/noop-app.
 */
export function noopDir(repo: string, dir: string, deploymentFile: string): string {
  const noop = join(repo, "scripts/bench/noop-app");
  const own = new Set(["ponder.config.ts", "ponder.schema.ts", "src"]);
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(repo)) {
    if (OWN_PER_RUN.has(entry)) continue;
    symlinkSync(join(own.has(entry) ? noop : repo, entry), join(dir, entry));
  }
  withDeployment(dir, deploymentFile);
  return dir;
}

function withDeployment(dir: string, deploymentFile: string) {
  mkdirSync(join(dir, "deployments"));
  copyFileSync(deploymentFile, join(dir, "deployments", basename(deploymentFile)));
}
