import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { Hono } from "hono";
import { clientIp, clientIpOfRequest, ipKey } from "./client-ip.ts";

// Reproduce a failure with FC_SEED=<printed seed>.
const seed = process.env.FC_SEED === undefined ? 20_260_424 : Number(process.env.FC_SEED);
if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${process.env.FC_SEED}`);
console.log(`client-ip: fast-check seed ${seed}`);

const ipOf = async (trustProxy: boolean, headers: Record<string, string>, remoteAddress?: string) => {
  const app = new Hono();
  app.get("/", (c) => c.text(clientIp(c, { trustProxy })));
  const env = remoteAddress ? { incoming: { socket: { remoteAddress } } } : undefined;
  return (await app.request("/", { headers }, env)).text();
};

describe("clientIp", () => {
  it("is the TCP peer, whatever X-Forwarded-For says, unless the proxy is trusted", async () => {
    assert.equal(await ipOf(false, { "x-forwarded-for": "6.6.6.6" }, "10.1.2.3"), "10.1.2.3");
  });

  it("is the last X-Forwarded-For entry behind a trusted proxy (earlier ones are client-supplied)", async () => {
    assert.equal(await ipOf(true, { "x-forwarded-for": "6.6.6.6, 203.0.113.9" }, "10.0.0.1"), "203.0.113.9");
  });

  it("falls back to the peer when a trusted proxy sent no header", async () => {
    assert.equal(await ipOf(true, {}, "10.0.0.1"), "10.0.0.1");
  });

  it("spells IPv4-mapped IPv6 peers as IPv4", async () => {
    assert.equal(await ipOf(false, {}, "::ffff:127.0.0.1"), "127.0.0.1");
  });

  it("keys an IPv6 peer, or forwarded address, by its /64: the addresses of one subscriber are one client", async () => {
    assert.equal(await ipOf(false, {}, "2001:db8:1:2::1"), "2001:db8:1:2::/64");
    assert.equal(await ipOf(false, {}, "2001:db8:1:2:ffff::9"), "2001:db8:1:2::/64");
    assert.equal(await ipOf(true, { "x-forwarded-for": "2001:db8:1:2::beef" }, "10.0.0.1"), "2001:db8:1:2::/64");
    const upgrade = (remoteAddress: string, forwarded?: string) =>
      clientIpOfRequest(
        { headers: forwarded ? { "x-forwarded-for": forwarded } : {}, socket: { remoteAddress } },
        { trustProxy: forwarded !== undefined },
      );
    assert.equal(upgrade("2001:db8:1:2::7"), "2001:db8:1:2::/64");
    assert.equal(upgrade("10.0.0.1", "2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    assert.equal(upgrade("::ffff:192.0.2.1"), "192.0.2.1");
  });

  it("is 'unknown' without a socket (in-process requests)", async () => {
    assert.equal(await ipOf(false, {}), "unknown");
  });
});

describe("ipKey", () => {
  it("keeps IPv4 and groups IPv6 by /64, in one spelling", () => {
    assert.equal(ipKey("203.0.113.7"), "203.0.113.7");
    assert.equal(ipKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(ipKey("2001:DB8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
    assert.equal(ipKey("2001:0db8:0001:0002:0000:0000:0000:0001"), "2001:db8:1:2::/64");
    assert.equal(ipKey("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(ipKey("2001:db8:1::"), "2001:db8:1:0::/64");
    assert.equal(ipKey("::1"), "0:0:0:0::/64");
    assert.equal(ipKey("::"), "0:0:0:0::/64");
    assert.equal(ipKey("64:ff9b::192.0.2.1"), "64:ff9b:0:0::/64", "an embedded IPv4 that is not a mapped one");
  });

  it("drops a zone id", () => {
    assert.equal(ipKey("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(ipKey("fe80::abcd:1%25"), "fe80:0:0:0::/64");
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4, in any spelling", () => {
    assert.equal(ipKey("::ffff:192.0.2.1"), "192.0.2.1");
    assert.equal(ipKey("::FFFF:192.0.2.1"), "192.0.2.1");
    assert.equal(ipKey("0:0:0:0:0:ffff:192.0.2.1"), "192.0.2.1");
    assert.equal(ipKey("::ffff:c000:201"), "192.0.2.1");
    assert.equal(ipKey("::ffff:0:201"), "0.0.2.1");
  });

  it("keeps text that is no address as it is, and is its own key", () => {
    for (const text of ["unknown", "", "1:2:3", "2001:db8::g", "2001:db8::1::2", "::ffff:300.1.1.1", "1.2.3.4:80"])
      assert.equal(ipKey(text), text, text);
    for (const address of ["203.0.113.7", "2001:db8:1:2::1", "::ffff:192.0.2.1", "::1", "fe80::1%eth0"])
      assert.equal(ipKey(ipKey(address)), ipKey(address), address);
  });

  it("gives every spelling of every address of a /64 that /64's key (property)", () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const groups = fc.array(group, { minLength: 8, maxLength: 8 });
    const spell = fc.record({ zeros: fc.boolean(), upper: fc.boolean(), compress: fc.boolean() });
    const write = (g: number[], { zeros, upper, compress }: { zeros: boolean; upper: boolean; compress: boolean }) => {
      let parts = g.map((n) => (zeros ? n.toString(16).padStart(4, "0") : n.toString(16)));
      let text = parts.join(":");
      if (compress) {
        // The longest run of zero groups becomes "::" (any run would do; this is the usual one).
        let best = [-1, 0];
        for (let i = 0; i < 8; i++) {
          let j = i;
          while (j < 8 && g[j] === 0) j++;
          if (j - i > best[1]!) best = [i, j - i];
        }
        if (best[1]! > 0) {
          parts = [...parts.slice(0, best[0]), "", ...parts.slice(best[0]! + best[1]!)];
          text = parts.join(":");
          if (best[0] === 0) text = `:${text}`;
          if (best[0]! + best[1]! === 8) text = `${text}:`;
        }
      }
      return upper ? text.toUpperCase() : text;
    };
    fc.assert(
      fc.property(groups, group, group, spell, spell, (g, x, y, s1, s2) => {
        if (g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff) return; // IPv4-mapped: its own rule
        const sibling = [...g.slice(0, 6), x, y];
        const key = `${g
          .slice(0, 4)
          .map((n) => n.toString(16))
          .join(":")}::/64`;
        assert.equal(ipKey(write(g, s1)), key, write(g, s1));
        assert.equal(ipKey(write(sibling, s2)), key, write(sibling, s2));
      }),
      { seed, numRuns: 500 },
    );
  });
});
