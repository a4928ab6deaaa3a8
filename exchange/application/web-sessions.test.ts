import assert from "node:assert/strict";
import { describe, it } from "vitest";
import type { ExchangeStore } from "./ports.ts";
import type { WebSessionRow } from "./records.ts";
import { sessionTokenHash, WebSessions } from "./web-sessions.ts";

function sessions(maxNonces = 3) {
  let now = 1_000_000;
  const stored: WebSessionRow[] = [];
  const revoked: string[] = [];
  const store = {
    insertWebSession: async (row: WebSessionRow) => void stored.push(row),
    revokeWebSession: async (hash: string) => void revoked.push(hash),
  } as unknown as ExchangeStore;
  const web = new WebSessions({ store, nowMs: () => now, sessionTtlMs: 60_000, nonceTtlMs: 10_000, maxNonces });
  return { web, stored, revoked, advance: (ms: number) => (now += ms) };
}

describe("WebSessions", () => {
  it("a nonce is good once, until it expires", () => {
    const { web, advance } = sessions();
    const a = web.issueNonce().nonce;
    assert.match(a, /^[A-Za-z0-9]{24}$/);
    assert.ok(web.hasNonce(a));
    assert.equal(web.consumeNonce(a), true);
    assert.equal(web.consumeNonce(a), false);
    const b = web.issueNonce().nonce;
    advance(10_001);
    assert.equal(web.consumeNonce(b), false);
  });

  it("keeps at most maxNonces waiting: a flood drops the oldest", () => {
    const { web } = sessions(3);
    const issued = Array.from({ length: 5 }, () => web.issueNonce().nonce);
    assert.deepEqual(
      issued.map((n) => web.hasNonce(n)),
      [false, false, true, true, true],
    );
  });

  it("stores only the token's hash; a session ends at its expiry or at sign-out", async () => {
    const { web, stored, revoked, advance } = sessions();
    const { token } = await web.open("user-1");
    assert.equal(stored[0]!.tokenHash, sessionTokenHash(token));
    assert.ok(!JSON.stringify(stored).includes(token), "the token itself is never stored");
    assert.equal(web.resolve(token)?.userId, "user-1");
    assert.equal(web.resolve(`${token}x`), undefined);
    advance(60_000);
    assert.equal(web.resolve(token), undefined, "expired");
    const second = await web.open("user-1");
    await web.close(second.token);
    assert.equal(web.resolve(second.token), undefined);
    assert.deepEqual(revoked, [sessionTokenHash(second.token)]);
  });

  it("loads only live sessions", () => {
    const { web } = sessions();
    const row = (token: string, expiresAt: number, revokedAt: number | null): WebSessionRow => ({
      tokenHash: sessionTokenHash(token),
      userId: token,
      createdAt: 0,
      expiresAt,
      revokedAt,
    });
    web.load([row("live", 2_000_000, null), row("expired", 999_999, null), row("revoked", 2_000_000, 5)]);
    assert.deepEqual(
      ["live", "expired", "revoked"].map((t) => web.resolve(t)?.userId ?? null),
      ["live", null, null],
    );
  });
});
