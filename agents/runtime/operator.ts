import { join } from "node:path";
import { type Address, getAddress, type PublicClient } from "viem";
import { openRelayer, type RelayerClients, type Sql } from "../../relayer/index.ts";
import type { LocalAccount } from "./accounts.ts";
import type { SendingConfig } from "./config.ts";
import type { Operator } from "./execute.ts";
import { IntentLog } from "./intents.ts";

/**
 * One agent account's sending side: its own database (intents and the relayer's journal), bound
 * to the chain's genesis, and its Relayer. Each account has its own journal, so nonces never mix.
 */

export interface OperatorConfig extends SendingConfig {
  readonly name: string;
  readonly account: LocalAccount;
  /** Reads and estimates (may batch). */
  readonly client: PublicClient;
  /** The relayers' clients, one set shared by every agent account (relayerClients). */
  readonly clients: RelayerClients;
  readonly chainId: number;
  readonly genesisHash: string;
  readonly actionLog: Address;
  readonly beforeBroadcast?: () => void;
  readonly log: (message: string) => void;
}

export async function openOperator(config: OperatorConfig): Promise<{ op: Operator; sql: Sql }> {
  const { relayer, journal, sql, chain } = await openRelayer({
    clients: config.clients,
    account: config.account,
    chainId: config.chainId,
    journal: {
      name: `agent ${config.name}'s database`,
      databaseUrl: config.databaseUrl,
      dataDir: join(config.dataDir, config.name),
      schema: config.databaseUrl ? `${config.schema}_${config.name.replace(/-/g, "_")}` : config.schema,
      timeoutMs: config.dbTimeoutMs,
      migrate: (db) => new IntentLog(db).migrate(),
    },
    genesisHash: config.genesisHash,
    receiptTimeoutMs: config.receiptTimeoutMs,
    replaceAfterMs: Math.max(config.receiptTimeoutMs / 2, 1_000),
    pollMs: config.pollMs,
    minBalanceWei: 0n,
    beforeBroadcast: config.beforeBroadcast,
  });
  const intents = new IntentLog(sql);
  if (chain === "changed") {
    config.log(`agents: ${config.name}: the chain is new; forgetting the journal of the old one`);
    await journal.clear();
    await intents.clear();
  }
  const op: Operator = {
    name: config.name,
    address: getAddress(config.account.address),
    client: config.client,
    relayer,
    journal,
    intents,
    actionLog: config.actionLog,
  };
  return { op, sql };
}
