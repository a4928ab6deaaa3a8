import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors.ts";
import { testConfig } from "../agents/test-support.tsx";
import { createAccountClient } from "./client.ts";

/** A fetch that answers from `routes` ("METHOD path") and records each request. */
function fakeExchange(routes: Record<string, [number, unknown]>) {
  const seen: Request[] = [];
  const fetchImpl = (async (input: Request) => {
    seen.push(input);
    const [status, body] = routes[`${input.method} ${new URL(input.url).pathname}`] ?? [404, { code: "NOT_FOUND" }];
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  }) as unknown as typeof fetch;
  return { client: createAccountClient(testConfig, fetchImpl), seen };
}

describe("the web account client", () => {
  it("sends the session cookie on every call and the CSRF token on writes", async () => {
    const key = { publicKey: "pk", privateKey: "sk", createdAt: 1 };
    const { client, seen } = fakeExchange({
      "GET /api/auth/session": [200, { account: null }],
      "POST /api/account/keys": [201, key],
      "DELETE /api/account/keys/pk": [200, { revoked: "pk" }],
    });
    expect(await client.me()).toBeNull();
    expect(await client.createKey("csrf-1")).toEqual(key);
    await client.revokeKey("csrf-1", "pk");
    expect(seen.map((r) => r.credentials)).toEqual(["include", "include", "include"]);
    expect(seen.map((r) => r.headers.get("X-CSRF-Token"))).toEqual([null, "csrf-1", "csrf-1"]);
  });

  it("turns a refusal into an ApiError with the exchange's code", async () => {
    const { client } = fakeExchange({
      "POST /api/auth/session": [401, { code: "UNAUTHORIZED", message: "the message is for chain 1" }],
    });
    const error = await client.signIn("message", "0x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "the message is for chain 1" });
  });
});
