import { randomUUID } from "node:crypto";
import { DomainError } from "../core/result.ts";
import type { ExchangeStore } from "./ports.ts";
import type { ApiKeyRow, LoadedState, UserRow } from "./records.ts";

// Users and their API keys: who may sign, with which secret, at which commission tier.

export interface KeyVault {
  encrypt(publicKey: string, privateKey: string): string;
  decrypt(publicKey: string, stored: string): string;
}

export interface AccountsOptions {
  readonly store: ExchangeStore;
  readonly vault: KeyVault;
  readonly generateKeyPair: () => { publicKey: string; privateKey: string };
  readonly nowMs: () => number;
}

export class Accounts {
  private readonly users = new Map<string, UserRow>();
  private readonly apiKeys = new Map<string, ApiKeyRow>();
  private readonly plainKeys = new Map<string, string>();
  private readonly revokedListeners: ((publicKey: string) => void)[] = [];
  /** Account creations in flight, by address (accountOfAddress). */
  private readonly creating = new Map<string, Promise<UserRow>>();
  /** The flush in flight: one at a time. */
  private flushing: Promise<void> | undefined;
  /** Last accepted uses not yet written (flushKeyUses), at most one per live key. */
  private readonly unwrittenUses = new Map<string, number>();
  /** The account each address signs into: its oldest (an operator may have bound two). */
  private readonly byAddress = new Map<string, UserRow>();
  private readonly options: AccountsOptions;

  constructor(options: AccountsOptions) {
    this.options = options;
  }

  /** Replaces every user and live key with what the database holds. */
  load(state: LoadedState): void {
    this.users.clear();
    this.apiKeys.clear();
    this.plainKeys.clear();
    this.byAddress.clear();
    for (const user of state.users) this.remember(user);
    for (const key of state.apiKeys) if (key.revokedAt === null) this.apiKeys.set(key.publicKey, key);
  }

  user(userId: string): UserRow | undefined {
    return this.users.get(userId);
  }

  /** Every user's id, in the order they were loaded or created. */
  userIds(): IterableIterator<string> {
    return this.users.keys();
  }

  get userCount(): number {
    return this.users.size;
  }

  private remember(user: UserRow): void {
    this.users.set(user.id, user);
    if (user.address === null) return;
    const bound = this.byAddress.get(user.address);
    if (bound === undefined || user.createdAt < bound.createdAt) this.byAddress.set(user.address, user);
  }

  /** The account bound to a chain address (the oldest, should an operator have made two). */
  userByAddress(address: string): UserRow | undefined {
    return this.byAddress.get(address.toLowerCase());
  }

  /**
   * The account bound to `address`, created at level 0 when there is none. Concurrent sign-ins of
   * a new address wait for the one creation in flight, so an address gets one account.
   */
  accountOfAddress(address: string): Promise<UserRow> {
    const wanted = address.toLowerCase();
    const existing = this.userByAddress(wanted);
    if (existing !== undefined) return Promise.resolve(existing);
    let creating = this.creating.get(wanted);
    if (creating === undefined) {
      creating = this.createUser(0, wanted).finally(() => this.creating.delete(wanted));
      this.creating.set(wanted, creating);
    }
    return creating;
  }

  /** A user's live keys, oldest first: public keys, creation and last-use times, never a secret. */
  keysOf(userId: string): { publicKey: string; createdAt: number; lastUsedAt: number | null }[] {
    return [...this.apiKeys.values()]
      .filter((key) => key.userId === userId)
      .sort((a, b) => a.createdAt - b.createdAt || a.publicKey.localeCompare(b.publicKey))
      .map((key) => ({
        publicKey: key.publicKey,
        createdAt: key.createdAt,
        lastUsedAt: this.unwrittenUses.get(key.publicKey) ?? key.lastUsedAt,
      }));
  }

  /** Notes that a live key signed an accepted request now (kept in memory until flushKeyUses). */
  noteKeyUse(publicKey: string): void {
    if (this.apiKeys.has(publicKey)) this.unwrittenUses.set(publicKey, this.options.nowMs());
  }

  /**
   * Writes the noted uses in one go (the server calls it every few seconds and at shutdown): a
   * signed request costs a map write, not a statement. A failed write keeps them for the next.
   */
  flushKeyUses(): Promise<void> {
    this.flushing ??= this.writeKeyUses().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeKeyUses(): Promise<void> {
    if (this.unwrittenUses.size === 0) return;
    const uses = [...this.unwrittenUses].map(([publicKey, atMs]) => ({ publicKey, atMs }));
    this.unwrittenUses.clear();
    try {
      await this.options.store.touchApiKeys(uses);
    } catch (error) {
      for (const use of uses)
        if (!this.unwrittenUses.has(use.publicKey)) this.unwrittenUses.set(use.publicKey, use.atMs);
      throw error;
    }
    for (const use of uses) {
      const row = this.apiKeys.get(use.publicKey);
      if (row !== undefined && (row.lastUsedAt ?? 0) < use.atMs)
        this.apiKeys.set(use.publicKey, { ...row, lastUsedAt: use.atMs });
    }
  }

  /**
   * Revokes one of the user's keys: from the moment this resolves, a request signed with it is
   * refused. NOT_FOUND for a key that is not the user's (or no longer live), so a caller learns
   * nothing of other users' keys.
   */
  async revokeApiKey(userId: string, publicKey: string): Promise<void> {
    const row = this.apiKeys.get(publicKey);
    if (row === undefined || row.userId !== userId) throw new DomainError("NOT_FOUND", `No live key ${publicKey}`);
    // Refused in memory first: a request racing the database write cannot slip through.
    this.apiKeys.delete(publicKey);
    this.plainKeys.delete(publicKey);
    this.unwrittenUses.delete(publicKey);
    try {
      await this.options.store.revokeApiKey(publicKey, this.options.nowMs());
    } catch (error) {
      this.apiKeys.set(publicKey, row);
      throw error;
    }
    for (const listener of this.revokedListeners) listener(publicKey);
  }

  /** Calls `listener` after each revocation (the stream server ends that key's logins). */
  onKeyRevoked(listener: (publicKey: string) => void): void {
    this.revokedListeners.push(listener);
  }

  /** A user's commission tier; 0 (the defaults) for an unknown user. */
  levelOf(userId: string): number {
    return this.users.get(userId)?.level ?? 0;
  }

  /** NOT_FOUND unless the user exists. */
  requireUser(userId: string): void {
    if (!this.users.has(userId)) throw new DomainError("NOT_FOUND", `Unknown user ${userId}`);
  }

  async createUser(level: number, address: string | null): Promise<UserRow> {
    const user: UserRow = {
      id: randomUUID(),
      level,
      address: address?.toLowerCase() ?? null,
      createdAt: this.options.nowMs(),
    };
    await this.options.store.insertUser(user);
    this.remember(user);
    return user;
  }

  /** Issues a key pair; the private key is returned once and stored only encrypted. */
  async issueApiKey(userId: string): Promise<{ publicKey: string; privateKey: string }> {
    this.requireUser(userId);
    const pair = this.options.generateKeyPair();
    const row: ApiKeyRow = {
      publicKey: pair.publicKey,
      userId,
      privateKeyEncrypted: this.options.vault.encrypt(pair.publicKey, pair.privateKey),
      createdAt: this.options.nowMs(),
      revokedAt: null,
      lastUsedAt: null,
    };
    await this.options.store.insertApiKey(row);
    this.apiKeys.set(row.publicKey, row);
    this.plainKeys.set(row.publicKey, pair.privateKey);
    return pair;
  }

  /** The signing secret behind a public key, decrypted once and kept in memory. */
  resolveKey(publicKey: string): { userId: string; privateKey: string } | undefined {
    const row = this.apiKeys.get(publicKey);
    if (row === undefined) return undefined;
    let privateKey = this.plainKeys.get(publicKey);
    if (privateKey === undefined) {
      privateKey = this.options.vault.decrypt(publicKey, row.privateKeyEncrypted);
      this.plainKeys.set(publicKey, privateKey);
    }
    return { userId: row.userId, privateKey };
  }
}
