import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { ExchangeInternalClient, signingHeadersProblem } from "./exchange-internal-client.ts";
import { ApiError } from "./http/index.ts";

// The batching, deadlines and fee-hold calls are tested through the ecosystem API's client
// (api/writes/exchange-client.test.ts); here, what the gateway's logins rely on.

const SIG = "0f".repeat(32);

describe("signingHeadersProblem", () => {
  it("accepts what the exchange would check and names the header it would refuse", () => {
    assert.equal(
      signingHeadersProblem({ "API-PublicKey": "pk", "API-Signature": SIG, "API-Timestamp": "0" }),
      undefined,
    );
    assert.equal(signingHeadersProblem({}), undefined, "absent headers are the exchange's to name");
    assert.match(signingHeadersProblem({ "API-PublicKey": "x".repeat(201) })!, /API-PublicKey/);
    assert.match(signingHeadersProblem({ "API-Signature": SIG.toUpperCase() })!, /API-Signature/);
    assert.match(signingHeadersProblem({ "API-Timestamp": "12345678901234567" })!, /API-Timestamp/);
  });
});

describe("ExchangeInternalClient.verify", () => {
  const clientAnswering = (answer: () => Response) => {
    const bodies: unknown[] = [];
    const client = new ExchangeInternalClient({
      baseUrl: "http://exchange.test",
      serviceSecret: "s3cret",
      timeoutMs: 1_000,
      fetch: (async (_url: string | URL | Request, init?: RequestInit) => {
        bodies.push(JSON.parse(String(init?.body)));
        return answer();
      }) as typeof fetch,
    });
    return { client, bodies };
  };
  const login = {
    method: "GET",
    url: "ws://gateway.test/ws",
    body: "",
    headers: { "API-PublicKey": "pk", "API-Signature": SIG, "API-Timestamp": "1700000000000" },
  };

  it("checks a gateway LOGIN (a GET of the WebSocket URL) through the batch route", async () => {
    const { client, bodies } = clientAnswering(() =>
      Response.json({ results: [{ status: 200, caller: { userId: "u-1", level: 3, address: null } }] }),
    );
    assert.deepEqual(await client.verify(login), { userId: "u-1", level: 3, address: null });
    assert.deepEqual(bodies, [{ requests: [login] }]);
  });

  it("answers a refused item with its 4xx and code, and a caller the exchange cannot read with 503", async () => {
    const refused = clientAnswering(() =>
      Response.json({ results: [{ status: 401, error: { code: "UNAUTHORIZED", message: "Stale API-Timestamp" } }] }),
    );
    await assert.rejects(refused.client.verify(login), (error: ApiError) => {
      assert.deepEqual([error.status, error.code, error.message], [401, "UNAUTHORIZED", "Stale API-Timestamp"]);
      return true;
    });
    const garbled = clientAnswering(() => Response.json({ results: [{ status: 200, caller: { who: "?" } }] }));
    await assert.rejects(garbled.client.verify(login), (error: ApiError) => {
      assert.deepEqual([error.status, error.code, error.headers["Retry-After"]], [503, "UNAVAILABLE", "2"]);
      return true;
    });
  });

  it("refuses a request it could not send (a method or URL the route does not take) alone, with 400", async () => {
    const { client, bodies } = clientAnswering(() => Response.json({ results: [] }));
    for (const bad of [
      { ...login, method: "TRACE" },
      { ...login, url: "not a url" },
    ])
      await assert.rejects(client.verify(bad), (error: ApiError) => error instanceof ApiError && error.status === 400);
    assert.equal(bodies.length, 0);
  });
});
