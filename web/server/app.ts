import { posix } from "node:path";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { timeout } from "hono/timeout";
import {
  ApiError,
  clientIp,
  createRateLimiter,
  errorHandler,
  notFound,
  rateLimit,
  requestId,
  sendError,
} from "../../lib/http/index.ts";
import type { WebConfig } from "./config.ts";
import { pickEncoding, type StaticFile, type StaticFiles } from "./static.ts";

export interface WebAppOptions {
  files: StaticFiles;
  /** `/config.json`'s body; rejects while there is none (no deployment yet): 503. */
  config: () => Promise<WebConfig>;
  /** Content-Security-Policy of every answer (contentSecurityPolicy). */
  csp: string;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  /** Most ms one answer may take; past it 503. */
  requestTimeoutMs: number;
  /** Milliseconds clock of the rate limit, injectable for tests. */
  now?: () => number;
}

/** Vite names every built asset by its content hash: such a URL never changes content. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** The page and anything else unhashed: revalidated (ETag) on every use, so a new build shows at once. */
const REVALIDATE = "no-cache";

/**
 * The web app's server: the built app's files, `index.html` for every app route (the app routes
 * in the browser), `/config.json`, and the headers a page served to browsers should carry. Only
 * GET and HEAD; errors are the APIs' `{code, message}`.
 */
export function createWebApp(options: WebAppOptions): Hono {
  const app = new Hono();
  // A request not answered in time (a file read stuck on a slow disk): hono/timeout throws its
  // 503, answered UNAVAILABLE like every other 503 of the APIs.
  app.onError(
    errorHandler({
      classify: (error) =>
        error instanceof HTTPException && error.status === 503
          ? new ApiError(503, "UNAVAILABLE", error.message)
          : undefined,
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header("Content-Security-Policy", options.csp);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "strict-origin-when-cross-origin");
    c.header("X-Frame-Options", "DENY");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  });
  app.use(requestId());
  const limiter = createRateLimiter({ limit: options.rateLimitPerMinute, now: options.now });
  app.use(rateLimit({ limiter, keyOf: (c) => clientIp(c, { trustProxy: options.trustProxy }) }));
  app.use(
    timeout(
      options.requestTimeoutMs,
      () => new HTTPException(503, { message: `No answer within ${options.requestTimeoutMs} ms; retry` }),
    ),
  );

  app.get("/config.json", async (c) => {
    const config = await options.config().catch((error: Error) => {
      throw new ApiError(503, "UNAVAILABLE", `No configuration yet: ${error.message}`);
    });
    c.header("Cache-Control", REVALIDATE);
    return c.json(config);
  });

  app.on(["GET", "HEAD"], "*", async (c) => {
    const path = decodedPath(c.req.path);
    const file = await options.files.get(path === "/" ? "/index.html" : path);
    if (file) return sendFile(c, file, path.startsWith("/assets/") ? IMMUTABLE : REVALIDATE);
    // A missing asset or file (a stale chunk of a previous build) is an error the app can see,
    // not a page; a path without an extension is one of the app's routes.
    if (path.startsWith("/assets/") || posix.basename(path).includes("."))
      return sendError(c, notFound(`No file at ${path}`));
    const page = await options.files.get("/index.html");
    if (!page) throw new ApiError(503, "UNAVAILABLE", "The web app is not built: run npm run build:web");
    return sendFile(c, page, REVALIDATE);
  });

  app.all("*", (c) => {
    c.header("Allow", "GET, HEAD");
    return sendError(c, new ApiError(405, "METHOD_NOT_ALLOWED", `${c.req.method} is not served here; use GET`));
  });
  return app;
}

function decodedPath(raw: string): string {
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, "INVALID_PARAM", "path: malformed percent-encoding");
  }
  if (path.includes("\0")) throw new ApiError(400, "INVALID_PARAM", "path: must not contain NUL");
  return posix.normalize(path);
}

function sendFile(c: Context, file: StaticFile, cacheControl: string): Response {
  c.header("Cache-Control", cacheControl);
  c.header("ETag", file.etag);
  if (file.gzip || file.br) c.header("Vary", "Accept-Encoding");
  if (
    c.req
      .header("If-None-Match")
      ?.split(/\s*,\s*/)
      .includes(file.etag)
  )
    return c.body(null, 304);
  const encoding = pickEncoding(c.req.header("Accept-Encoding"), file);
  const body = encoding ? file[encoding]! : file.body;
  if (encoding) c.header("Content-Encoding", encoding);
  c.header("Content-Type", file.type);
  c.header("Content-Length", String(body.length));
  if (c.req.method === "HEAD") return c.body(null, 200);
  return c.body(new Uint8Array(body), 200);
}
