import { renameSync } from "node:fs";
import { dataDirVersion, keptDirName } from "../lib/pglite-data-dir.ts";

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
  const major = dataDirVersion(dir);
  if (major === undefined || major === supportedMajor) return undefined;
  const target = keptDirName(dir, major);
  renameSync(dir, target);
  return target;
}
