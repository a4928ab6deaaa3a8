import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The event names our app registers (`ponder.on("Contract:Event", ...)` in indexer/handlers),
 * read from the source so the no-op app always subscribes to the same set.
 */
export function handledEvents(repo: string): string[] {
  const dir = join(repo, "indexer/handlers");
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
    for (const match of readFileSync(join(dir, file), "utf8").matchAll(
      /ponder\.on\(\s*"([A-Za-z0-9_]+:[A-Za-z0-9_]+)"/g,
    )) {
      names.add(match[1]);
    }
  }
  if (names.size === 0) throw new Error(`no ponder.on("Contract:Event") registrations found in ${dir}`);
  return [...names].sort();
}
