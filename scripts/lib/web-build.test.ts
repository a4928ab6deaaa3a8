import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "vitest";
import { webBuildDecision } from "./web-build.ts";

describe("webBuildDecision", () => {
  let web = "";
  const at = (path: string, seconds: number) => utimes(join(web, path), seconds, seconds);
  beforeEach(async () => {
    web = await mkdtemp(join(tmpdir(), "web-build-"));
  });
  afterEach(() => rm(web, { recursive: true, force: true }));

  it("builds nothing while the app is not in the checkout", async () => {
    assert.deepEqual(await webBuildDecision(web), { build: false, reason: "no-app" });
  });

  it("builds when web/dist is missing, or older than a source, the page or the Vite config", async () => {
    await mkdir(join(web, "src", "pages"), { recursive: true });
    await writeFile(join(web, "index.html"), "<!doctype html>");
    await writeFile(join(web, "vite.config.ts"), "export default {}");
    await writeFile(join(web, "src", "pages", "Token.tsx"), "export {}");
    for (const path of ["index.html", "vite.config.ts", "src/pages/Token.tsx"]) await at(path, 1_000);
    assert.deepEqual(await webBuildDecision(web), { build: true, reason: "no-dist" });

    await mkdir(join(web, "dist"));
    await writeFile(join(web, "dist", "index.html"), "built");
    await at("dist/index.html", 2_000);
    assert.deepEqual(await webBuildDecision(web), { build: false, reason: "up-to-date" });

    for (const path of ["src/pages/Token.tsx", "vite.config.ts", "index.html"]) {
      await at(path, 3_000);
      assert.deepEqual(await webBuildDecision(web), { build: true, reason: "stale", newer: join(web, path) });
      await at(path, 1_000);
    }
  });
});
