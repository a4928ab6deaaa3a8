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
  private readonly options: AccountsOptions;

  constructor(options: AccountsOptions) {
    this.options = options;
  }

  /** Replaces every user and live key with what the database holds. */
  load(state: LoadedState): void {
    this.users.clear();
    this.apiKeys.clear();
    this.plainKeys.clear();
    for (const user of state.users) this.users.set(user.id, user);
    for (const key of state.apiKeys) if (key.revokedAt === null) this.apiKeys.set(key.publicKey, key);
  }

  user(userId: string): UserRow | undefined {
    return this.users.get(userId);
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
    this.users.set(user.id, user);
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
