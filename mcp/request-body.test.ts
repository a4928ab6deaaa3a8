import { Readable } from "node:stream";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { readJsonBody } from "./request-body.ts";

const app = new Hono();
app.post("/", async (c) => c.json(await readJsonBody(c, 64)));

const viaNode = (chunks: string[], headers: Record<string, string> = {}) =>
  app.request("/", { method: "POST", headers, body: "ignored" }, { incoming: Readable.from(chunks.map(Buffer.from)) });
const viaRequest = (body: string) => app.request("/", { method: "POST", body });

describe("readJsonBody", () => {
  it("reads the Node request where there is one, else the Request", async () => {
    expect(await (await viaNode(['{"a":', '"é"}'])).json()).toEqual({ ok: true, value: { a: "é" } });
    expect(await (await viaRequest('{"b":1}')).json()).toEqual({ ok: true, value: { b: 1 } });
  });

  it("refuses what the SDK refuses: bad JSON 400, a body past the bound 413", async () => {
    expect(await (await viaNode(["{"])).json()).toMatchObject({ ok: false, status: 400 });
    expect(await (await viaRequest("nope")).json()).toMatchObject({ ok: false, status: 400 });
    const big = JSON.stringify({ pad: "x".repeat(64) });
    expect(await (await viaNode([big.slice(0, 40), big.slice(40)])).json()).toMatchObject({ ok: false, status: 413 });
    expect(await (await viaRequest(big)).json()).toMatchObject({ ok: false, status: 413 });
    expect(await (await viaNode(["{}"], { "content-length": "65" })).json()).toMatchObject({ ok: false, status: 413 });
  });
});
