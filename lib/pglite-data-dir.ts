import { existsSync, readFileSync } from "node:fs";

// A PostgreSQL data directory's version and where an old one is kept, with no database loaded:
// the indexer's config checks its directory with these at every build.

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
