/**
 * A key revoked over the exchange's API ends its logins on a WebSocket gateway (npm run gateway)
 * as on the exchange's own /ws: closed with 4001 "API key revoked", no private event after it,
 * and a new LOGIN with it refused; the same user's other key keeps its stream. Gateways refuse a
 * web session's tickets, so a session signed out has no gateway login to end. Needs NATS
 * (NATS_URL, default nats://127.0.0.1:4222); without one reachable the suite says so and skips.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, it } from "vitest";
import { gatewayEnv, parseEnv } from "../../config/env.ts";
import { connectNats } from "../../exchange/adapters/stream/index.ts";
import { seedDemoBeforeLoad } from "../../exchange/demo/reference-data.ts";
import { type RunningGateway, startGateway } from "../../exchange/gateway/start.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { type Backend, createBackend } from "../../support/exchange/backends.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { StreamClient } from "../../support/exchange/stream-client.ts";
import { TEST_WEB_ORIGIN, webAccountClient } from "../../support/exchange/web-account-client.ts";

const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const NATS_SUBJECT_PREFIX = `test-revocation-${process.pid}-${Date.now()}`;
const WEB = TEST_WEB_ORIGIN;
const person = privateKeyToAccount(`0x${"7c".repeat(32)}`);
const natsUp = await connectNats(NATS_URL, "gateway-revocation-probe", 2_000).then(
  async (nc) => {
    await nc.close();
    return true;
  },
  () => false,
);
if (!natsUp) console.warn(`gateway-revocation.test.ts: no NATS at ${NATS_URL}; the suite is skipped`);

describe.skipIf(!natsUp)("a revoked key on a WebSocket gateway", () => {
  let backend: Backend;
  let server: RunningExchange;
  let gateway: RunningGateway;
  let api: SigningClient;

  beforeAll(async () => {
    backend = await createBackend("pglite", { NATS_URL, NATS_SUBJECT_PREFIX });
    server = await startExchange(
      { ...backend.env, WEB_ORIGIN: [WEB], CHAIN_ID: 31337 },
      { log: () => {}, beforeLoad: seedDemoBeforeLoad },
    );
    api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    gateway = await startGateway(
      parseEnv(gatewayEnv, {
        NATS_URL,
        NATS_SUBJECT_PREFIX,
        GATEWAY_PORT: "0",
        EXCHANGE_URL: server.url,
        EXCHANGE_SERVICE_SECRET: backend.env.EXCHANGE_SERVICE_SECRET!,
      }),
      () => {},
      // Far beyond the test: what closes the login here is the revocation pushed over NATS.
      { revocationCheckMs: 600_000 },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
    await backend?.cleanup();
  });

  const web = webAccountClient(() => server.url, WEB);
  const { call } = web;
  /** Sign in with Ethereum as `person`: the session that makes and revokes keys. */
  const signIn = async () => {
    const session = await web.signIn(person);
    return { cookie: session.cookie, csrf: session.csrf, userId: session.account.userId };
  };

  const gatewayClient = () => StreamClient.connect(gateway.url.replace(/^ws/, "http"), "");
  const userEvents = (client: StreamClient) => client.events.filter((e) => e.stream === "user");

  it("closes the key's gateway logins with 4001 at once; the user's other key keeps its stream", async () => {
    const session = await signIn();
    const newKey = async (): Promise<Credentials> => {
      const created = await call("POST", "/api/account/keys", session);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { userId: session.userId, publicKey: created.body.publicKey, privateKey: created.body.privateKey };
    };
    const revokedKey = await newKey();
    const otherKey = await newKey();
    const deposit = async (amount: string) => {
      const answer = await api.admin("POST", "/admin/deposits", {
        userId: session.userId,
        currencyCode: "USDT",
        amount,
      });
      assert.equal(answer.status, 201, answer.text);
    };

    const [revoked, alsoRevoked, other] = [await gatewayClient(), await gatewayClient(), await gatewayClient()];
    try {
      for (const [client, key] of [
        [revoked, revokedKey],
        [alsoRevoked, revokedKey],
        [other, otherKey],
      ] as const)
        assert.equal((await client.login(key)).result?.userId, session.userId);
      // Both see the user's stream while the key is live: the assertions below can fail.
      await deposit("10");
      for (const client of [revoked, other])
        await client.until(() => userEvents(client).length > 0, 10_000, "a balance event before the revocation");

      const revokedAt = Date.now();
      const answer = await call("DELETE", `/api/account/keys/${revokedKey.publicKey}`, session);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      for (const client of [revoked, alsoRevoked]) {
        await client.until(() => client.closed !== undefined, 5_000, "the revoked key's gateway login closed");
        assert.deepEqual(client.closed, { code: 4001, reason: "API key revoked" });
      }
      assert.ok(Date.now() - revokedAt < 5_000);
      const seenBefore = userEvents(revoked).length;

      const seenByOther = userEvents(other).length;
      await deposit("5");
      await other.until(() => userEvents(other).length > seenByOther, 10_000, "the other key's balance event");
      await sleep(200);
      assert.equal(userEvents(revoked).length, seenBefore, "no private event after the revocation");
      assert.equal(other.closed, undefined, "the other key's login stays");

      const again = await gatewayClient();
      try {
        const refused = await again.login(revokedKey);
        assert.equal(refused.error?.code, "UNAUTHORIZED", JSON.stringify(refused));
      } finally {
        again.close();
      }
    } finally {
      for (const client of [revoked, alsoRevoked, other]) client.close();
    }
  });

  it("refuses a web session's ticket: a signed-out session has no gateway login to end", async () => {
    const session = await signIn();
    const issued = await call("GET", "/api/account/ws-ticket", session);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const client = await gatewayClient();
    try {
      const refused = await client.request("LOGIN", { ticket: issued.body.ticket });
      assert.equal(refused.error?.code, "UNAUTHORIZED", JSON.stringify(refused));
      assert.deepEqual((await client.request("LIST_SUBSCRIPTIONS")).result, [], "no user stream on the gateway");
    } finally {
      client.close();
    }
  });
});
