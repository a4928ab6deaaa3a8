import { existsSync, readFileSync, renameSync } from "node:fs";

/**
 * Ponder runs on PGlite 0.5 (PostgreSQL 18) here, not the 0.2 (PostgreSQL 16) it pins: 0.2 opened,
 * truncated and closed a file for every statement, and the indexer's per-block statements are most
 * of its cost on the embedded database (bench:writes: 50 -> 30 ms of CPU per one-vote block).
 * PostgreSQL 18 cannot open a 16 data directory. What the indexer keeps there is derived from
 * the chain, so an old directory is moved aside (never deleted: the operator decides) and the
 * indexer rebuilds from the deployment's start block.
 *
 * Returns where the old directory went, or undefined when there was nothing to move.
 */
export function retireIncompatibleDataDir(dir: string, supportedMajor = "18"): string | undefined {
  let major: string;
  try {
    major = readFileSync(`${dir}/PG_VERSION`, "utf8").trim();
  } catch {
    return undefined;
  }
  if (major === supportedMajor) return undefined;
  let target = `${dir}.pg${major}`;
  for (let n = 2; existsSync(target); n++) target = `${dir}.pg${major}.${n}`;
  renameSync(dir, target);
  return target;
}
