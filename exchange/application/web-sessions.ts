import { createHash, randomBytes } from "node:crypto";
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
  /** Most nonces waiting at once; beyond it the oldest is dropped (a flood cannot grow memory). */
  readonly maxNonces: number;
}

export const DEFAULT_WEB_SESSIONS = {
  sessionTtlMs: 7 * 24 * 3600_000,
  nonceTtlMs: 10 * 60_000,
  maxNonces: 10_000,
} as const;

/** SHA-256 (hex) of a session token: what the database keys a session by. */
export const sessionTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

export class WebSessions {
  private readonly sessions = new Map<string, WebSessionRow>();
  /** Nonce -> when it expires; insertion order is age order. */
  private readonly nonces = new Map<string, number>();
  private readonly options: WebSessionsOptions;

  constructor(options: WebSessionsOptions) {
    this.options = options;
  }

  /** Replaces the live sessions with the database's (start-up and recovery). */
  load(rows: readonly WebSessionRow[]): void {
    this.sessions.clear();
    const now = this.options.nowMs();
    for (const row of rows) if (row.revokedAt === null && row.expiresAt > now) this.sessions.set(row.tokenHash, row);
  }

  /** A fresh nonce (EIP-4361: at least 8 alphanumerics; here 24) for one sign-in message. */
  issueNonce(): { nonce: string; expiresAt: number } {
    const now = this.options.nowMs();
    for (const [nonce, expiresAt] of this.nonces) {
      if (expiresAt > now && this.nonces.size < this.options.maxNonces) break;
      this.nonces.delete(nonce);
    }
    const nonce = randomBytes(18).toString("base64url").replace(/[-_]/g, "0");
    const expiresAt = now + this.options.nonceTtlMs;
    this.nonces.set(nonce, expiresAt);
    return { nonce, expiresAt };
  }

  /** Whether `nonce` was issued here and is neither used nor expired (it is not used up by asking). */
  hasNonce(nonce: string): boolean {
    const expiresAt = this.nonces.get(nonce);
    return expiresAt !== undefined && expiresAt > this.options.nowMs();
  }

  /** Uses a nonce up: true exactly once for a nonce `hasNonce` accepts. */
  consumeNonce(nonce: string): boolean {
    const live = this.hasNonce(nonce);
    this.nonces.delete(nonce);
    return live;
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
    return { token, expiresAt: row.expiresAt };
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
    await this.options.store.revokeWebSession(hash, this.options.nowMs());
  }
}
