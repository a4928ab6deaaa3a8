import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, it } from "vitest";
import { pickEncoding, type StaticFile, staticFiles } from "./static.ts";

const both: StaticFile = {
  body: Buffer.from("x"),
  type: "text/plain",
  etag: '"e"',
  gzip: Buffer.from("g"),
  br: Buffer.from("b"),
};

describe("pickEncoding", () => {
  it("prefers Brotli, then gzip, honouring q=0 and *", () => {
    assert.equal(pickEncoding("gzip, deflate, br, zstd", both), "br");
    assert.equal(pickEncoding("gzip", both), "gzip");
    assert.equal(pickEncoding("br;q=0, gzip;q=0.5", both), "gzip");
    assert.equal(pickEncoding("br;q=0, *", both), "gzip");
    assert.equal(pickEncoding("*;q=0.1", both), "br");
    assert.equal(pickEncoding("identity", both), undefined);
    assert.equal(pickEncoding(undefined, both), undefined);
    assert.equal(pickEncoding("br", { ...both, br: undefined }), undefined);
  });
});

describe("staticFiles", () => {
  let root = "";
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "web-static-"));
    await mkdir(join(root, "assets"));
    await mkdir(join(root, ".git"));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("compresses text files worth it, both ways, and leaves small or binary ones alone", async () => {
    const script = `export const rows = [${Array.from({ length: 500 }, (_, i) => `"row ${i}"`).join(",")}];\n`;
    await writeFile(join(root, "assets", "index-abc123.js"), script);
    await writeFile(join(root, "small.css"), "body{margin:0}");
    await writeFile(join(root, "logo.png"), Buffer.alloc(4096, 7));
    const files = staticFiles(root);
    const js = (await files.get("/assets/index-abc123.js"))!;
    assert.equal(js.type, "text/javascript; charset=utf-8");
    assert.equal(gunzipSync(js.gzip!).toString(), script);
    assert.equal(brotliDecompressSync(js.br!).toString(), script);
    assert.ok(js.br!.length < js.gzip!.length && js.gzip!.length < script.length / 4);
    const css = (await files.get("/small.css"))!;
    assert.deepEqual([css.type, css.gzip, css.br], ["text/css; charset=utf-8", undefined, undefined]);
    const png = (await files.get("/logo.png"))!;
    assert.deepEqual([png.type, png.gzip, png.body.length], ["image/png", undefined, 4096]);
  });

  it("serves nothing outside its root, no dotfile and no directory", async () => {
    await writeFile(join(root, "..", `${root.split("/").at(-1)}-secret.txt`), "no").catch(() => undefined);
    await writeFile(join(root, ".git", "config"), "secret");
    await writeFile(join(root, ".env"), "secret");
    const files = staticFiles(root);
    for (const path of [
      "/../etc/passwd",
      `/../${root.split("/").at(-1)}-secret.txt`,
      "/.env",
      "/.git/config",
      "/assets",
    ])
      assert.equal(await files.get(path), undefined, path);
    await rm(join(root, "..", `${root.split("/").at(-1)}-secret.txt`), { force: true });
  });

  it("serves a file's new content once it changes on disk, with a new ETag", async () => {
    const path = join(root, "index.html");
    await writeFile(path, "<!doctype html><p>one</p>");
    const files = staticFiles(root);
    const first = (await files.get("/index.html"))!;
    assert.equal(await files.get("/index.html"), first, "an unchanged file is read once");
    await writeFile(path, "<!doctype html><p>second build</p>");
    const second = (await files.get("/index.html"))!;
    assert.equal(second.body.toString(), "<!doctype html><p>second build</p>");
    assert.notEqual(second.etag, first.etag);
  });
});
