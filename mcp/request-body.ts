import type { Context } from "hono";

/** The SDK transport's own bound on a POST body (4 MiB), kept when /mcp reads bodies itself. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

const tooLarge = (maxBytes: number): JsonBody => ({
  ok: false,
  status: 413,
  message: `Payload Too Large: Request body must not exceed ${maxBytes} bytes`,
});
const invalid: JsonBody = { ok: false, status: 400, message: "Parse error: Invalid JSON" };

/** @hono/node-server passes the Node request as env.incoming (as lib/http/client-ip.ts reads it). */
function nodeRequestOf(c: Context): AsyncIterable<Buffer> | undefined {
  const env: unknown = c.env;
  if (typeof env !== "object" || env === null || !("incoming" in env)) return undefined;
  const incoming = env.incoming as Partial<AsyncIterable<Buffer>> | undefined;
  return typeof incoming?.[Symbol.asyncIterator] === "function" ? (incoming as AsyncIterable<Buffer>) : undefined;
}

async function nodeText(incoming: AsyncIterable<Buffer>, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8");
}

/**
 * A POST's JSON body, handed to the SDK transport as `parsedBody`. Read straight from the Node
 * request where @hono/node-server serves the app: the SDK reading it from the Request makes a web
 * Request and a web stream over the Node stream first, about a tenth of what the transport costs
 * a call (bench:mcp's profile). Elsewhere (app.request) from the Request. The same bound and
 * refusals as the SDK's own reading.
 */
export async function readJsonBody(c: Context, maxBytes = MAX_BODY_BYTES): Promise<JsonBody> {
  if (Number(c.req.header("content-length")) > maxBytes) return tooLarge(maxBytes);
  let text: string | undefined;
  try {
    const incoming = nodeRequestOf(c);
    if (incoming) text = await nodeText(incoming, maxBytes);
    else {
      text = await c.req.text();
      if (Buffer.byteLength(text) > maxBytes) text = undefined;
    }
  } catch {
    return invalid;
  }
  if (text === undefined) return tooLarge(maxBytes);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return invalid;
  }
}
