import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * Whether `npm start` must build the web app (`npm run build:web`) before serving it: when the
 * app is in the checkout and web/dist is missing or older than anything the build reads.
 */
export type WebBuildDecision =
  | { build: false; reason: "no-app" | "up-to-date" }
  | { build: true; reason: "no-dist" | "stale"; newer?: string };

/** What `vite build` reads, relative to web/: its sources, static files and configuration. */
const INPUTS = ["src", "public", "index.html", "vite.config.ts", "tsconfig.json", "package.json"];

export async function webBuildDecision(webDir: string): Promise<WebBuildDecision> {
  if (!existsSync(join(webDir, "index.html"))) return { build: false, reason: "no-app" };
  const built = await stat(join(webDir, "dist", "index.html")).catch(() => undefined);
  if (!built) return { build: true, reason: "no-dist" };
  for (const input of INPUTS) {
    const newer = await newerThan(join(webDir, input), built.mtimeMs);
    if (newer) return { build: true, reason: "stale", newer };
  }
  return { build: false, reason: "up-to-date" };
}

/** The first file under `path` (a file or a directory tree) modified after `mtimeMs`. */
async function newerThan(path: string, mtimeMs: number): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  if (!info.isDirectory()) return info.mtimeMs > mtimeMs ? path : undefined;
  for (const entry of await readdir(path)) {
    const found = await newerThan(join(path, entry), mtimeMs);
    if (found) return found;
  }
  return undefined;
}
