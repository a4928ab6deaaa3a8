/**
 * The exchange's WebSocket streams over a real server, under a random order stream (seed printed;
 * STREAM_SEED pins it): a client keeping a local book from `@depth` diffs equals the REST snapshot
 * at every checkpoint; one that disconnects and resyncs converges; `@trade` equals /api/deals; a
 * logged-in user sees each of its own fills exactly once. Then the protocol's errors, and a slow
 * consumer that is let go while the server's send buffers stay bounded.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { afterAll, beforeAll, describe, it } from "vitest";
import WebSocket from "ws";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { startExchange, type RunningExchange } from "../../exchange/server/start.ts";
import { mulberry32 } from "../../lib/random.ts";
import { backendKinds, createBackend, type Backend } from "../../support/exchange/backends.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { LocalBook, StreamClient } from "../../support/exchange/stream-client.ts";
import { rawUpgrades } from "../../support/net/raw-upgrade.ts";

const PAIR = "ALPHA_USDT";
const SEED = Number(process.env.STREAM_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`streams.test.ts: order stream seed STREAM_SEED=${SEED}`);
const quiet = () => {};

for (const kind of backendKinds()) {
  describe(`exchange streams on ${kind}`, () => {
    let backend: Backend;
    let server: RunningExchange;
    let api: SigningClient;
    let traders: Credentials[];

    beforeAll(async () => {
      backend = await createBackend(kind, { WS_MAX_BUFFERED_BYTES: "65536", WS_MAX_MESSAGES_PER_SECOND: "50" });
      server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
      api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
      traders = [];
      for (let i = 0; i < 4; i++) traders.push(await api.user(0, { ALPHA: "1000000", USDT: "1000000" }));
    });
    afterAll(async () => {
      await server?.close();
      await backend?.cleanup();
    });

    const snapshot = async () => {
      const res = await fetch(`${server.url}/api/depth?currencyPairCode=${PAIR}&limit=1000`);
      assert.equal(res.status, 200);
      return (await res.json()) as { lastUpdateId: number; bids: [string, string][]; asks: [string, string][] };
    };

    /** Subscribes, buffers diffs, loads the snapshot over them: the documented procedure. */
    const follow = async () => {
      const client = await StreamClient.connect(server.url);
      const ack = await client.request("SUBSCRIBE", [`${PAIR}@depth`, `${PAIR}@trade`]);
      assert.deepEqual(ack, { result: null, id: 1 });
      const book = new LocalBook();
      let applied = 0;
      const resync = async () => {
        for (;;) {
          const snap = await snapshot();
          const depth = client.events.filter((e) => e.stream === `${PAIR}@depth`);
          if (
            book.load(
              snap,
              depth.map((e) => e.data),
            )
          ) {
            applied = depth.length;
            return;
          }
        }
      };
      await resync();
      /** Applies what arrived since; resyncs on a gap. */
      const catchUp = async () => {
        const depth = client.events.filter((e) => e.stream === `${PAIR}@depth`);
        for (; applied < depth.length; applied++) if (!book.apply(depth[applied]!.data)) return resync();
      };
      return { client, book, catchUp };
    };

    /** Waits until the follower has every diff up to the server's current update id. */
    const settle = async (f: Awaited<ReturnType<typeof follow>>) => {
      const target = (await snapshot()).lastUpdateId;
      await f.client.until(
        () => {
          const depth = f.client.events.filter((e) => e.stream === `${PAIR}@depth`);
          return depth.length > 0 && depth.at(-1)!.data.u >= target;
        },
        10_000,
        `update id ${target}`,
      );
      await f.catchUp();
    };

    it("a local book from @depth equals the REST book at every checkpoint; a resynced one converges; trades and fills match", async () => {
      const random = mulberry32(SEED);
      const a = await follow();
      const user = await StreamClient.connect(server.url);
      const login = await user.login(traders[0]!);
      assert.equal(login.result?.userId, traders[0]!.userId, JSON.stringify(login));
      let b = await follow();
      const open: { who: Credentials; id: string }[] = [];
      const commands = 240;
      for (let i = 0; i < commands; i += 8) {
        // Eight at a time, so commits group several commands into one batch.
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            const who = traders[Math.floor(random() * traders.length)]!;
            if (open.length > 0 && random() < 0.25) {
              const [order] = open.splice(Math.floor(random() * open.length), 1);
              await api.signed(order!.who, "DELETE", `/api/orders/${order!.id}`);
              return;
            }
            const isBid = random() < 0.5;
            const price = (0.9 + Math.floor(random() * 21) / 100).toFixed(2);
            const amount = String(2 + Math.floor(random() * 20));
            const res = await api.signed(who, "POST", "/api/orders", {
              isBid,
              currencyPairCode: PAIR,
              amount,
              price,
              ...(random() < 0.2 ? { timeInForce: "IOC" } : {}),
            });
            assert.equal(res.status, 201, res.text);
            if (res.body.status === "open") open.push({ who, id: res.body.id });
          }),
        );
        if (i === 96) b.client.close(); // b drops out mid-stream...
        if (i === 144) b = await follow(); // ...and comes back, resyncing from a snapshot.
        if (i % 48 === 0 || i + 8 >= commands) {
          await settle(a);
          const rest = await snapshot();
          assert.deepEqual(a.book.sorted(), { bids: rest.bids, asks: rest.asks }, `checkpoint after ${i + 8} commands`);
        }
      }
      await settle(b);
      const rest = await snapshot();
      assert.deepEqual(b.book.sorted(), { bids: rest.bids, asks: rest.asks }, "the resynced follower converged");
      assert.equal(a.book.gaps, 0, "no gaps on a connection that stayed up");

      // Every deal once on @trade, as /api/deals lists them (newest first there).
      const deals: any[] = [];
      for (let page = 1; ; page++) {
        const res = await api.admin("GET", `/api/deals?currencyPairCode=${PAIR}&pageSize=100&pageNumber=${page}`);
        deals.push(...res.body);
        if (res.body.length < 100) break;
      }
      assert.ok(deals.length > 10, `the random stream traded (${deals.length} deals)`);
      await a.client.until(() => a.client.events.filter((e) => e.stream === `${PAIR}@trade`).length >= deals.length);
      const trades = a.client.events.filter((e) => e.stream === `${PAIR}@trade`).map((e) => e.data);
      assert.deepEqual(
        trades.map((t) => [t.id, Number(t.p), Number(t.q), t.side === "buy"]),
        deals.reverse().map((d) => [d.id, d.price, d.volume, d.isBuy]),
      );

      // The user's own fills: each once, and exactly the deals it took part in.
      const ownDeals = new Set<string>();
      for (let page = 1; ; page++) {
        const res = await api.signed(
          traders[0]!,
          "GET",
          `/api/deals?currencyPairCode=${PAIR}&pageSize=100&pageNumber=${page}`,
        );
        for (const d of res.body) if (d.isUserBuyer !== null) ownDeals.add(d.id);
        if (res.body.length < 100) break;
      }
      await user.until(() => user.events.filter((e) => e.data.e === "fill").length >= ownDeals.size);
      const fills = user.events.filter((e) => e.data.e === "fill").map((e) => e.data.dealId as string);
      assert.equal(new Set(fills).size, fills.length, "no fill twice");
      assert.deepEqual(new Set(fills), ownDeals);
      assert.ok(user.events.every((e) => e.stream === "user"));
      assert.ok(
        user.events.some((e) => e.data.e === "balance" && e.data.currencyCode === "USDT"),
        "balance changes arrive",
      );
      for (const client of [a.client, b.client, user]) client.close();
    }, 120_000);

    it("answers bad requests with a code and keeps the connection open; refuses a bad or replayed login", async () => {
      const client = await StreamClient.connect(server.url);
      assert.equal((await client.raw("not json")).error.code, "INVALID_PARAM");
      assert.equal((await client.request("PUBLISH", ["x"])).error.code, "INVALID_PARAM");
      assert.equal((await client.request("SUBSCRIBE", ["ALPHA_USDT@candles"])).error.code, "INVALID_PARAM");
      assert.equal((await client.request("SUBSCRIBE", ["NOPE_USDT@trade"])).error.code, "UNKNOWN_PAIR");
      assert.equal((await client.request("SUBSCRIBE", [`${PAIR}@ticker`, "!ticker@arr"])).result, null);
      assert.deepEqual((await client.request("LIST_SUBSCRIPTIONS")).result, [`${PAIR}@ticker`, "!ticker@arr"]);
      assert.equal((await client.request("UNSUBSCRIBE", ["!ticker@arr"])).result, null);
      assert.deepEqual((await client.request("LIST_SUBSCRIPTIONS")).result, [`${PAIR}@ticker`]);
      const stranger = { ...traders[1]!, privateKey: `${traders[1]!.privateKey}x` };
      assert.equal((await client.login(stranger)).error.code, "UNAUTHORIZED");
      const at = Date.now();
      assert.equal((await client.login(traders[1]!, at)).result.userId, traders[1]!.userId);
      const again = await client.login(traders[1]!, at);
      assert.equal(again.error.code, "UNAUTHORIZED");
      assert.match(again.error.message, /Replayed/);
      assert.equal(client.closed, undefined, "still open after every error");
      client.close();
    });

    it("delivers tickers at most once a second per pair", async () => {
      const client = await StreamClient.connect(server.url);
      await client.request("SUBSCRIBE", [`${PAIR}@ticker`]);
      await api.signed(traders[2]!, "POST", "/api/orders", {
        isBid: true,
        currencyPairCode: PAIR,
        amount: "4",
        price: "0.5",
      });
      await client.until(() => client.events.length > 0, 5_000, "a ticker");
      const ticker = client.events[0]!.data;
      assert.equal(ticker.e, "ticker");
      assert.equal(ticker.currencyPairCode, PAIR);
      for (const field of ["price", "price24hAgo", "priceChangePercentage24h", "volume24h", "bidPrice", "askPrice"])
        assert.equal(typeof ticker[field], "number", field);
      const times = client.events.map((e) => e.data.E as number);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 900);
      client.close();
    });

    it("lets a client that never reads go as a slow consumer; buffers stay bounded", async () => {
      const slow = await StreamClient.connect(server.url);
      await slow.request("SUBSCRIBE", [`${PAIR}@depth`, `${PAIR}@trade`]);
      // Its own orders' updates and balances too: about a kilobyte per order.
      const trader = await api.user(0, { ALPHA: "10000000", USDT: "10000000" });
      assert.ok((await slow.login(trader)).result);
      // Stops reading: the kernel buffers fill, then the server's queue for it grows.
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      let peak = 0;
      const before = server.streamServer.slowConsumers();
      const random = mulberry32(SEED + 1);
      // Until the server lets it go (the kernel's socket buffers take the first few megabytes).
      let orders = 0;
      for (; orders < 12_000 && server.streamServer.slowConsumers() === before; orders += 6) {
        await Promise.all(
          Array.from({ length: 6 }, () =>
            api.signed(trader, "POST", "/api/orders", {
              isBid: random() < 0.5,
              currencyPairCode: PAIR,
              amount: "4",
              price: (0.5 + Math.floor(random() * 400) / 1000).toFixed(3),
            }),
          ),
        );
        peak = Math.max(peak, server.streamServer.bufferedBytes());
      }
      assert.equal(server.streamServer.slowConsumers(), before + 1, `let go (after ${orders} orders)`);
      assert.ok(peak <= 65536 + 4096, `server-side queue peaked at ${peak} bytes (limit 64 KiB + one message)`);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      await slow.until(() => slow.closed !== undefined, 10_000, "the close");
      assert.equal(slow.closed!.code, 4008);
      assert.match(slow.closed!.reason, /SLOW_CONSUMER/);
    }, 60_000);
  });
}

describe("exchange stream limits", () => {
  let backend: Backend;
  let server: RunningExchange;

  beforeAll(async () => {
    backend = await createBackend("pglite", {
      WS_MAX_CONNECTIONS_PER_IP: "3",
      WS_MAX_MESSAGES_PER_SECOND: "5",
      WS_IDLE_TIMEOUT_MS: "300",
      WS_PING_INTERVAL_MS: "200",
    });
    server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
  });
  afterAll(async () => {
    await server?.close();
    await backend?.cleanup();
  });

  it("refuses connections past the per-IP limit with 429, and takes them again once one closes", async () => {
    const open = [await StreamClient.connect(server.url), await StreamClient.connect(server.url)];
    open.push(await StreamClient.connect(server.url));
    await assert.rejects(StreamClient.connect(server.url), /429/);
    open[0]!.close();
    await open[0]!.until(() => open[0]!.closed !== undefined);
    await sleep(50);
    const again = await StreamClient.connect(server.url);
    for (const client of [...open, again]) client.close();
    while (server.streamServer.connectionCount() > 0) await sleep(20);
  });

  it("answers an Upgrade to any other path and closes it at once: 120 from one IP hold nothing", async () => {
    // Each raw socket asks to upgrade /other and then neither reads on nor closes: before, each
    // stayed open for good, outside every limit and timeout.
    const outcomes = await rawUpgrades(server.url, "/other", { count: 120 });
    const held = outcomes.filter((o) => o.openMs > 1_000).length;
    assert.equal(held, 0, `${held} of 120 upgrade sockets to /other were still open after 1 s`);
    for (const { status } of outcomes) assert.match(status, /^HTTP\/1\.1 (404|429) /);
    assert.ok(
      outcomes.some((o) => o.status.startsWith("HTTP/1.1 404")),
      "an unclaimed path is 404 while the IP has places",
    );
    // A target no URL parser accepts used to throw in the upgrade listener: an uncaught exception.
    const [odd] = await rawUpgrades(server.url, "http://[/ws");
    assert.match(odd!.status, /^HTTP\/1\.1 404 /, "a target that is no URL");
    const client = await StreamClient.connect(server.url);
    assert.equal((await client.request("SUBSCRIBE", [`${PAIR}@trade`])).result, null, "/ws still serves this IP");
    client.close();
    while (server.streamServer.connectionCount() > 0) await sleep(20);
  });

  it("counts every upgrade against the per-IP limit, and closes each it refuses at once", async () => {
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await StreamClient.connect(server.url));
    for (const path of ["/ws", "/other", "/ws?x=1"]) {
      const [outcome] = await rawUpgrades(server.url, path);
      assert.match(outcome!.status, /^HTTP\/1\.1 429 /, path);
      assert.ok(outcome!.openMs < 1_000, `${path}: held ${outcome!.openMs} ms`);
    }
    for (const client of open) client.close();
    while (server.streamServer.connectionCount() > 0) await sleep(20);
    const [bad] = await rawUpgrades(server.url, "/ws", { upgrade: "h2c" });
    assert.match(bad!.status, /^HTTP\/1\.1 400 /, "an upgrade to another protocol");
    assert.ok(bad!.openMs < 1_000, `a bad upgrade held ${bad!.openMs} ms`);
  });

  it("closes a connection that subscribes to nothing (4000) and one that stops answering pings", async () => {
    const idle = await StreamClient.connect(server.url);
    const dead = await StreamClient.connect(server.url);
    assert.equal((await dead.request("SUBSCRIBE", [`${PAIR}@trade`])).result, null);
    // A peer that stops reading never answers a ping: dropped within two intervals.
    (dead.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await idle.until(() => idle.closed !== undefined, 5_000, "the idle close");
    assert.equal(idle.closed!.code, 4000);
    const deadline = Date.now() + 5_000;
    while (server.streamServer.connectionCount() > 0 && Date.now() < deadline) await sleep(50);
    assert.equal(server.streamServer.connectionCount(), 0, "the silent peer was dropped");
  });

  it("answers requests past the per-second allowance with RATE_LIMITED, and closes a flood (4029)", async () => {
    const client = await StreamClient.connect(server.url);
    const limited: any[] = [];
    client.socket.on("message", (raw) => {
      const body = JSON.parse(raw.toString());
      if (body.error?.code === "RATE_LIMITED") limited.push(body);
    });
    for (let i = 0; i < 40; i++) client.socket.send(JSON.stringify({ method: "LIST_SUBSCRIPTIONS", id: i }));
    await client.until(() => client.closed !== undefined, 5_000, "the flood's close");
    assert.ok(limited.length >= 1, "told it was rate limited first");
    assert.equal(client.closed!.code, 4029);
  });
});

describe("failed /ws LOGINs", () => {
  let backend: Backend;
  let server: RunningExchange;
  afterAll(async () => {
    await server?.close();
    await backend?.cleanup();
  });

  it("count with failed signatures per client IP: past the limit a LOGIN, and a signed request, are refused before their check", async () => {
    backend = await createBackend("pglite", { AUTH_FAILURE_LIMIT_PER_MINUTE: "3" });
    server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
    const api = new SigningClient(server.url, backend.env.EXCHANGE_ADMIN_TOKEN!);
    const trader = await api.user(0, { USDT: "10" });
    const stranger = { ...trader, privateKey: `${trader.privateKey}x` };
    const client = await StreamClient.connect(server.url);
    for (let i = 0; i < 3; i++) assert.equal((await client.login(stranger)).error.code, "UNAUTHORIZED");
    const refused = await client.login(trader);
    assert.equal(refused.error.code, "RATE_LIMITED", JSON.stringify(refused));
    assert.equal(client.closed, undefined, "still open");
    // The same window as the signed HTTP routes: this IP's signed request gets 429 as well.
    const balances = await api.signed(trader, "GET", "/api/balances");
    assert.equal(balances.status, 429, balances.text);
    client.close();
  });
});

describe("an IPv6 /64 is one client of the exchange", () => {
  let backend: Backend;
  let server: RunningExchange;

  beforeAll(async () => {
    // Behind a trusted proxy, as an IPv6 client is seen when the test cannot bind many addresses.
    backend = await createBackend("pglite", {
      TRUST_PROXY: "true",
      WS_MAX_CONNECTIONS_PER_IP: "2",
      RATE_LIMIT_PER_MINUTE: "5",
    });
    server = await startExchange(backend.env, { log: quiet, beforeLoad: seedFixtureBeforeLoad });
  });
  afterAll(async () => {
    await server?.close();
    await backend?.cleanup();
  });

  /** A /ws connection forwarded for `ip`: the open socket, or the status that refused it. */
  const connectFrom = (ip: string) =>
    new Promise<WebSocket | number>((resolve, reject) => {
      const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { headers: { "x-forwarded-for": ip } });
      socket.once("open", () => resolve(socket));
      socket.once("unexpected-response", (request, response) => {
        request.destroy();
        resolve(response.statusCode ?? 0);
      });
      socket.once("error", reject);
    });

  it("shares the WebSocket places of a per-IP limit among the addresses of one /64", async () => {
    const sockets = [await connectFrom("2001:db8:7:7::1"), await connectFrom("2001:db8:7:7:ffff:eeee:dddd:2")];
    try {
      for (const socket of sockets) assert.ok(socket instanceof WebSocket, `opened: ${socket}`);
      const third = await connectFrom("2001:db8:7:7::3");
      if (third instanceof WebSocket) third.close();
      assert.equal(
        third instanceof WebSocket ? "opened" : third,
        429,
        "a third address of the /64 finds its places taken",
      );
      const other = await connectFrom("2001:db8:7:8::1");
      assert.ok(other instanceof WebSocket, "the next /64 is another client");
      sockets.push(other);
    } finally {
      for (const socket of sockets) if (socket instanceof WebSocket) socket.close();
    }
    while (server.streamServer.connectionCount() > 0) await sleep(20);
  });

  it("shares one public request quota among the addresses of one /64", async () => {
    const get = (ip: string) =>
      fetch(`${server.url}/api/currencies/pairs`, { headers: { "x-forwarded-for": ip } }).then((r) => r.status);
    for (let i = 1; i <= 5; i++) assert.equal(await get(`2001:db8:9:9::${i}`), 200, `request ${i}`);
    assert.equal(await get("2001:db8:9:9:abcd::6"), 429, "the /64's quota of 5 is spent");
    assert.equal(await get("2001:db8:9:a::1"), 200, "the next /64 is another client");
  });
});
