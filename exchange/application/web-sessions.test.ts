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
  it("a nonce is good once, until it expires, and only as issued here", () => {
    const { web, advance } = sessions();
    const a = web.issueNonce().nonce;
    assert.match(a, /^[0-9a-f]{60}$/);
    assert.ok(web.hasNonce(a));
    assert.equal(web.consumeNonce(a), true);
    assert.equal(web.consumeNonce(a), false);
    const forged = `${a.slice(0, 27)}${a[27] === "0" ? "1" : "0"}${a.slice(28)}`;
    assert.equal(web.hasNonce(forged), false, "a changed expiry or random part fails the HMAC");
    assert.equal(web.hasNonce(sessions().web.issueNonce().nonce), false, "another process's nonce");
    const b = web.issueNonce().nonce;
    advance(10_001);
    assert.equal(web.consumeNonce(b), false);
  });

  it("a flood of nonce requests pushes out no one's nonce; used ones are bounded", () => {
    const { web, advance } = sessions(3);
    const mine = web.issueNonce().nonce;
    for (let i = 0; i < 10_000; i++) web.issueNonce();
    assert.equal(web.consumeNonce(mine), true, "still good after 10,000 others were issued");
    assert.equal(web.consumeNonce(web.issueNonce().nonce), true);
    assert.equal(web.consumeNonce(web.issueNonce().nonce), true);
    const refused = web.issueNonce().nonce;
    assert.equal(web.consumeNonce(refused), false, "past maxNonces used ones, sign-ins wait");
    advance(10_001);
    assert.equal(web.consumeNonce(web.issueNonce().nonce), true, "expired used nonces make room");
  });

  it("keeps at most 20 live sessions per account: a new sign-in ends the oldest", async () => {
    const { web, revoked } = sessions();
    const tokens = [];
    for (let i = 0; i < 21; i++) tokens.push((await web.open("user-1")).token);
    assert.equal(web.resolve(tokens[0]!), undefined);
    assert.equal(web.resolve(tokens[20]!)?.userId, "user-1");
    assert.deepEqual(revoked, [sessionTokenHash(tokens[0]!)]);
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
