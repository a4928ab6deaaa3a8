import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ExchangeStore } from "./ports.ts";
import type { WebSessionRow } from "./records.ts";

// The web account's sign-in state: one-time nonces for Sign in with Ethereum messages, and the
// sessions a verified message opens. A session's token lives only in the user's httpOnly cookie;
// the database and memory hold its SHA-256, so a leaked table opens no session.

export interface WebSessionsOptions {
  readonly store: ExchangeStore;
  readonly nowMs: () => number;
  /** How long a session lasts from sign-in. */
  readonly sessionTtlMs: number;
  /** How long a nonce may wait for its signed message. */
  readonly nonceTtlMs: number;
  /** Most used nonces remembered (until they expire); beyond it sign-ins are refused, memory stays flat. */
  readonly maxNonces: number;
}

/** Expiry (12 hex digits of epoch ms), 8 random bytes, 16 bytes of HMAC: 60 hex digits. */
const NONCE = /^[0-9a-f]{60}$/;
/** Live sessions one account keeps; a new sign-in beyond it ends the oldest. */
const MAX_SESSIONS_PER_USER = 20;

export const DEFAULT_WEB_SESSIONS = {
  sessionTtlMs: 7 * 24 * 3600_000,
  nonceTtlMs: 10 * 60_000,
  maxNonces: 10_000,
} as const;

/** SHA-256 (hex) of a session token: what the database keys a session by. */
export const sessionTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

export class WebSessions {
  private readonly sessions = new Map<string, WebSessionRow>();
  /** Nonces used by a sign-in, until they expire. */
  private readonly usedNonces = new Map<string, number>();
  /** Signs nonces; a restart makes the outstanding ones invalid (a user signs in again). */
  private readonly nonceKey = randomBytes(32);
  private readonly options: WebSessionsOptions;
  private readonly endedListeners: (() => void)[] = [];

  constructor(options: WebSessionsOptions) {
    this.options = options;
  }

  /** Calls `listener` after sessions end by sign-out or by a newer sign-in's trim (the /ws logins made with them end too). */
  onEnded(listener: () => void): void {
    this.endedListeners.push(listener);
  }

  /** Whether the session of token hash `tokenHash` is live (not revoked, not expired). */
  isLive(tokenHash: string): boolean {
    const row = this.sessions.get(tokenHash);
    return row !== undefined && row.expiresAt > this.options.nowMs();
  }

  private ended(): void {
    for (const listener of this.endedListeners) listener();
  }

  /** Replaces the live sessions with the database's (start-up and recovery). */
  load(rows: readonly WebSessionRow[]): void {
    this.sessions.clear();
    const now = this.options.nowMs();
    for (const row of rows) if (row.revokedAt === null && row.expiresAt > now) this.sessions.set(row.tokenHash, row);
  }

  /**
   * A fresh nonce for one sign-in message: its expiry, 8 random bytes and an HMAC of both under a
   * key of this process, in hex (EIP-4361 wants alphanumerics). Nothing is stored until it is
   * used, so no flood of requests can push another user's nonce out.
   */
  issueNonce(): { nonce: string; expiresAt: number } {
    const expiresAt = this.options.nowMs() + this.options.nonceTtlMs;
    const body = `${expiresAt.toString(16).padStart(12, "0")}${randomBytes(8).toString("hex")}`;
    return { nonce: `${body}${this.mac(body)}`, expiresAt };
  }

  /** Whether this process issued `nonce`, it has not expired and it is unused. */
  hasNonce(nonce: string): boolean {
    if (!NONCE.test(nonce)) return false;
    const body = nonce.slice(0, 28);
    const given = Buffer.from(nonce.slice(28), "hex");
    const expected = Buffer.from(this.mac(body), "hex");
    if (!timingSafeEqual(given, expected)) return false;
    return Number.parseInt(body.slice(0, 12), 16) > this.options.nowMs() && !this.usedNonces.has(nonce);
  }

  /**
   * Uses a nonce up: true exactly once for a nonce `hasNonce` accepts. Used nonces are kept until
   * they expire, at most `maxNonces` of them: past that (a sign-in flood) a sign-in is refused
   * rather than memory grown.
   */
  consumeNonce(nonce: string): boolean {
    if (!this.hasNonce(nonce)) return false;
    const now = this.options.nowMs();
    if (this.usedNonces.size >= this.options.maxNonces)
      for (const [used, expiresAt] of this.usedNonces) if (expiresAt <= now) this.usedNonces.delete(used);
    if (this.usedNonces.size >= this.options.maxNonces) return false;
    this.usedNonces.set(nonce, Number.parseInt(nonce.slice(0, 12), 16));
    return true;
  }

  private mac(body: string): string {
    return createHmac("sha256", this.nonceKey).update(body).digest("hex").slice(0, 32);
  }

  /** Opens a session for `userId`; the token is returned once, for the cookie. */
  async open(userId: string): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.options.nowMs();
    const row: WebSessionRow = {
      tokenHash: sessionTokenHash(token),
      userId,
      createdAt: now,
      expiresAt: now + this.options.sessionTtlMs,
      revokedAt: null,
    };
    await this.options.store.insertWebSession(row);
    this.sessions.set(row.tokenHash, row);
    await this.trim(userId, now);
    return { token, expiresAt: row.expiresAt };
  }

  /** Drops expired sessions from memory, and ends a user's oldest beyond MAX_SESSIONS_PER_USER. */
  private async trim(userId: string, now: number): Promise<void> {
    const mine: WebSessionRow[] = [];
    for (const [hash, row] of this.sessions) {
      if (row.expiresAt <= now) this.sessions.delete(hash);
      else if (row.userId === userId) mine.push(row);
    }
    mine.sort((a, b) => a.createdAt - b.createdAt);
    const ending = mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_USER));
    for (const row of ending) this.sessions.delete(row.tokenHash);
    if (ending.length > 0) this.ended();
    for (const row of ending) await this.options.store.revokeWebSession(row.tokenHash, now);
  }

  /** The live session a cookie's token opens, or undefined (unknown, revoked or expired). */
  resolve(token: string): WebSessionRow | undefined {
    const hash = sessionTokenHash(token);
    const row = this.sessions.get(hash);
    if (row === undefined) return undefined;
    if (row.expiresAt <= this.options.nowMs()) {
      this.sessions.delete(hash);
      return undefined;
    }
    return row;
  }

  /** Signs out: the session is refused from now on, in memory at once and in the database. */
  async close(token: string): Promise<void> {
    const hash = sessionTokenHash(token);
    if (!this.sessions.delete(hash)) return;
    this.ended();
    await this.options.store.revokeWebSession(hash, this.options.nowMs());
  }
}
