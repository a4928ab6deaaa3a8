import { existsSync, readFileSync, renameSync } from "node:fs";

// A PostgreSQL data directory's version and where an old one is kept, with no database loaded:
// the indexer's config checks its directory with these at every build (ponder-config.ts).

/** The PostgreSQL major version of the data directory `dir`, or undefined if there is none. */
export function dataDirVersion(dir: string): string | undefined {
  try {
    return readFileSync(`${dir}/PG_VERSION`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** `<dir>.pg<major>`, or the first of `.pg<major>.2`, `.3`, ... not taken by an earlier move. */
export function keptDirName(dataDir: string, major: string): string {
  let name = `${dataDir}.pg${major}`;
  for (let n = 2; existsSync(name); n++) name = `${dataDir}.pg${major}.${n}`;
  return name;
}

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
