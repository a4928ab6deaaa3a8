import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { describe, it } from "vitest";
import { TcpProxy } from "./tcp-proxy.ts";

// The proxy the outage tests put in front of PostgreSQL. That a blackhole lets nothing through is
// proved there (a commit through it times out); here: forwarding, delivery of what was held, reset.

async function echoServer() {
  const server = createServer((socket) => {
    socket.on("error", () => {}); // reset by the proxy
    socket.pipe(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as { port: number }).port };
}

function reader(socket: Socket) {
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (text += chunk));
  return async (expected: string) => {
    while (text.length < expected.length) await once(socket, "data");
    assert.equal(text, expected);
  };
}

describe("TcpProxy", () => {
  it("forwards, holds everything while blackholed, delivers it in order when restored, and resets connections", async () => {
    const echo = await echoServer();
    const proxy = await TcpProxy.start({ host: "127.0.0.1", port: echo.port });
    try {
      const client = connect(proxy.port, "127.0.0.1");
      await once(client, "connect");
      const received = reader(client);
      client.write("one ");
      await received("one ");
      proxy.blackhole();
      client.write("two ");
      client.write("three");
      proxy.restore();
      await received("one two three");
      assert.equal(proxy.connections, 1);

      // events.once would reject on the reset's error event, which is what is expected here.
      const closed = new Promise((resolve) => client.on("close", resolve));
      const errors: NodeJS.ErrnoException[] = [];
      client.on("error", (error) => errors.push(error));
      proxy.reset();
      await closed;
      assert.equal(errors[0]?.code, "ECONNRESET");
      assert.equal(proxy.connections, 0);
    } finally {
      await proxy.close();
      echo.server.close();
    }
  });
});
