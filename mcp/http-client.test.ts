import { describe, expect, it } from "vitest";
import { type Answer, type ReadTarget, readJson } from "./http-client.ts";

const overHttp = (seen: string[]): ReadTarget["fetch"] => {
  return async (url) => {
    seen.push(url);
    return Response.json({ via: "http" });
  };
};

describe("readJson", () => {
  it("reads in process what the target has, with the query as REST receives it; the rest over HTTP", async () => {
    const seen: string[] = [];
    const queries: Record<string, string>[] = [];
    const target: ReadTarget = {
      fetch: overHttp(seen),
      base: "http://api",
      local: (path, query) => {
        if (path !== "/api/a") return undefined;
        queries.push(query);
        return Promise.resolve({ ok: true, body: { via: "local" } });
      },
    };
    const signal = new AbortController().signal;
    expect(await readJson(target, "/api/a", { pageSize: 5, boosted: false, sort: undefined }, signal)).toEqual({
      ok: true,
      body: { via: "local" },
      inProcess: true,
    });
    expect(queries).toEqual([{ pageSize: "5", boosted: "false" }]);
    expect(await readJson(target, "/api/b", { page: 2 }, signal)).toEqual({ ok: true, body: { via: "http" } });
    expect(seen).toEqual(["http://api/api/b?page=2"]);
  });

  it("answers TIMEOUT at the deadline though a read in process never ends", async () => {
    const never = new Promise<Answer>(() => {});
    const target: ReadTarget = { fetch: overHttp([]), base: "", local: () => never };
    const controller = new AbortController();
    const answer = readJson(target, "/api/a", undefined, controller.signal);
    setTimeout(() => controller.abort(), 5);
    expect(await answer).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(await readJson(target, "/api/a", undefined, controller.signal)).toMatchObject({
      ok: false,
      error: { code: "TIMEOUT" },
    });
  });
});
