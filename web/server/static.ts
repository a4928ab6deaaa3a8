import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/**
 * The built app's files, read and compressed once per version of each file (its mtime and size,
 * checked on every request, so a rebuild under a running server is served at once). Gzip and
 * Brotli are computed at the highest levels on first use, off the event loop (zlib's thread
 * pool): the dist is a few MB, so memory is cheap and each answer is a buffer copy.
 */
export interface StaticFile {
  body: Buffer;
  type: string;
  /** Strong ETag of the content. */
  etag: string;
  gzip?: Buffer;
  br?: Buffer;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".webmanifest": "application/manifest+json",
};
/** Already-compressed formats gain nothing from another pass. */
const COMPRESSIBLE = new Set([
  ".html",
  ".js",
  ".mjs",
  ".css",
  ".json",
  ".map",
  ".svg",
  ".txt",
  ".wasm",
  ".webmanifest",
]);
/** Below this, headers outweigh the saving. */
const MIN_COMPRESS_BYTES = 1024;

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface StaticFiles {
  /** The file at a URL path (already decoded), or undefined when there is none (or it is outside the root). */
  get(urlPath: string): Promise<StaticFile | undefined>;
}

export function staticFiles(root: string): StaticFiles {
  const base = resolve(root);
  const cache = new Map<string, { version: string; file: Promise<StaticFile> }>();
  return {
    async get(urlPath) {
      const path = resolve(base, `.${urlPath}`);
      // Outside the root, or a dotfile anywhere on the way: never served.
      if (
        !path.startsWith(base + sep) ||
        path
          .slice(base.length)
          .split(sep)
          .some((part) => part.startsWith("."))
      )
        return undefined;
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      const version = `${info.mtimeMs}:${info.size}`;
      const hit = cache.get(path);
      if (hit?.version === version) return hit.file;
      const file = load(path);
      cache.set(path, { version, file });
      file.catch(() => cache.delete(path));
      return file;
    },
  };
}

async function load(path: string): Promise<StaticFile> {
  const body = await readFile(path);
  const extension = extname(path).toLowerCase();
  const file: StaticFile = {
    body,
    type: TYPES[extension] ?? "application/octet-stream",
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
  };
  if (COMPRESSIBLE.has(extension) && body.length >= MIN_COMPRESS_BYTES) {
    const [gz, br] = await Promise.all([
      gzipAsync(body, { level: 9 }),
      brotliAsync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    ]);
    // Kept only when smaller: a compressed answer that grew is worse than none.
    if (gz.length < body.length) file.gzip = gz;
    if (br.length < body.length) file.br = br;
  }
  return file;
}

/**
 * The encoding to answer with: Brotli, then gzip, when the client accepts it (`q=0` refuses),
 * and the file has it.
 */
export function pickEncoding(acceptEncoding: string | undefined, file: StaticFile): "br" | "gzip" | undefined {
  const accepted = new Set<string>();
  const refused = new Set<string>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    (q !== undefined && !(Number(q.slice(2)) > 0) ? refused : accepted).add(name.trim());
  }
  const takes = (name: string) => !refused.has(name) && (accepted.has(name) || accepted.has("*"));
  if (file.br && takes("br")) return "br";
  if (file.gzip && takes("gzip")) return "gzip";
  return undefined;
}
