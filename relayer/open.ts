import { createPublicClient, http, type PublicClient } from "viem";
import { Journal } from "./journal.ts";
import { Relayer, type RelayerOptions } from "./relayer.ts";
import { openSql, type Sql } from "../lib/db/index.ts";

/**
 * The one way a service gets a relayer: its RPC clients, its journal's database (migrated, bound
 * to the chain) and the Relayer that hands out its nonces. The ecosystem's writes open one for the
 * relayer account, the agents runtime one per agent account (each with a journal of its own, so
 * nonces never mix), sharing one set of clients.
 */

/** The clients a relayer sends through; one set serves every relayer of a process. */
export interface RelayerClients {
  /** Broadcasts' receipts, fee and balance reads: never batched with other reads, whose slowest member a broadcast would wait for. */
  readonly sending: PublicClient;
  /** Broadcasts ready together, in one JSON-RPC batch, in nonce order (a node runs a batch's calls in order). */
  readonly broadcast: PublicClient;
  /** Where `private` writes go (a Flashbots-Protect-style endpoint), when configured. */
  readonly private?: PublicClient;
}

export function relayerClients(config: {
  readonly rpcUrl: string;
  readonly rpcTimeoutMs: number;
  readonly privateRelayUrl?: string;
}): RelayerClients {
  const { rpcUrl, rpcTimeoutMs: timeout, privateRelayUrl } = config;
  return {
    sending: createPublicClient({ transport: http(rpcUrl, { timeout, retryCount: 1 }) }) as PublicClient,
    broadcast: createPublicClient({
      transport: http(rpcUrl, { timeout, retryCount: 1, batch: { wait: 0 } }),
    }) as PublicClient,
    private: privateRelayUrl
      ? (createPublicClient({ transport: http(privateRelayUrl, { timeout }) }) as PublicClient)
      : undefined,
  };
}

export interface RelayerConfig
  extends Pick<
    RelayerOptions,
    "account" | "chainId" | "receiptTimeoutMs" | "replaceAfterMs" | "pollMs" | "minBalanceWei" | "beforeBroadcast"
  > {
  /** Built once per process (relayerClients) and shared, or built here from rpcUrl. */
  readonly clients: RelayerClients | { readonly rpcUrl: string; readonly rpcTimeoutMs: number };
  /** The journal: PGlite in `dataDir` without `databaseUrl`, else `schema` on that server. */
  readonly journal: {
    /** What its errors call the database (lib/db's OpenSqlOptions.name); "relayer database" unless told. */
    readonly name?: string;
    readonly databaseUrl?: string;
    readonly dataDir: string;
    readonly schema: string;
    readonly timeoutMs: number;
    /** Where an embedded journal runs (lib/db): a caller that is itself a thread opens it "here". */
    readonly embedded?: "thread" | "here";
    /** The caller's own tables in the same database (created with the journal's, upgraded with it). */
    readonly migrate?: (sql: Sql) => Promise<void>;
  };
  /** The chain's genesis hash: the journal is bound to it (`chain` says whether it changed). */
  readonly genesisHash?: string;
}

export interface OpenRelayer {
  readonly relayer: Relayer;
  readonly journal: Journal;
  /** The journal's database, for the caller's own tables (journal.migrate). */
  readonly sql: Sql;
  /** "changed": the journal knew another chain; its rows are the caller's to release or forget. */
  readonly chain: "same" | "new" | "changed" | undefined;
  close(): Promise<void>;
}

export async function openRelayer(config: RelayerConfig): Promise<OpenRelayer> {
  const clients = "sending" in config.clients ? config.clients : relayerClients(config.clients);
  const { migrate, ...database } = config.journal;
  const sql = await openSql({
    ...database,
    name: database.name ?? "relayer database",
    migrate: async (db) => {
      await new Journal(db).migrate();
      await migrate?.(db);
    },
  });
  try {
    const journal = new Journal(sql);
    const chain = config.genesisHash === undefined ? undefined : await journal.bindChain(config.genesisHash);
    const relayer = new Relayer({
      client: clients.sending,
      broadcastClient: clients.broadcast,
      privateClient: clients.private,
      account: config.account,
      chainId: config.chainId,
      journal,
      receiptTimeoutMs: config.receiptTimeoutMs,
      replaceAfterMs: config.replaceAfterMs,
      pollMs: config.pollMs,
      minBalanceWei: config.minBalanceWei,
      beforeBroadcast: config.beforeBroadcast,
    });
    return { relayer, journal, sql, chain, close: () => sql.close() };
  } catch (error) {
    await sql.close().catch(() => {});
    throw error;
  }
}
