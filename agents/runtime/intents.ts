import type { Sql } from "../../lib/db/index.ts";
import { GroupCommit } from "./group-commit.ts";

/**
 * The runtime's memory of what each agent decided: every intent is written here before anything
 * is sent for it, and stays open until its transactions are mined (or it fails), so a restart
 * finishes what a crash interrupted instead of deciding it again. BatchAuction trades wait here,
 * `batched`, until their window is netted.
 */

export type IntentState = "open" | "done" | "failed" | "batched" | "netted";

export interface IntentRow {
  readonly id: string;
  readonly agent: string;
  readonly tick: number;
  /** JSON of the intent (agents/runtime/execute.ts), amounts as decimal strings. */
  readonly spec: string;
  readonly state: IntentState;
  /** The BatchAuction window a batched trade belongs to. */
  readonly batchWindow: number | null;
  readonly result: string | null;
}

const MIGRATION = [
  `create table if not exists agent_intent (
    id text primary key,
    agent text not null,
    tick bigint not null,
    spec text not null,
    state text not null,
    batch_window bigint,
    result text,
    created_at bigint not null
  )`,
  "create index if not exists agent_intent_pending on agent_intent (agent, state) where state in ('open', 'batched')",
  "create table if not exists agent_tick (agent text primary key, tick bigint not null)",
];

interface IntentRecord {
  id: string;
  agent: string;
  tick: string | number;
  spec: string;
  state: IntentState;
  batch_window: string | number | null;
  result: string | null;
}

const toRow = (r: IntentRecord): IntentRow => ({
  id: r.id,
  agent: r.agent,
  tick: Number(r.tick),
  spec: r.spec,
  state: r.state,
  batchWindow: r.batch_window === null ? null : Number(r.batch_window),
  result: r.result,
});

interface Settle {
  readonly id: string;
  readonly state: "done" | "failed" | "netted";
  readonly result: string;
}

export interface NewIntent {
  readonly id: string;
  readonly agent: string;
  readonly tick: number;
  readonly spec: string;
  readonly state: "open" | "batched";
  readonly batchWindow?: number;
}

export class IntentLog {
  private readonly sql: Sql;
  // Intents recorded and settled together are stored together (group-commit.ts).
  private readonly adding = new GroupCommit((rows: readonly NewIntent[]) => this.insertAll(rows));
  private readonly settling = new GroupCommit((rows: readonly Settle[]) => this.settleAll(rows));

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async migrate(): Promise<void> {
    for (const statement of MIGRATION) await this.sql.query(statement);
  }

  /** The agent's next tick number (ticks are counted across restarts). */
  async nextTick(agent: string): Promise<number> {
    const [row] = await this.sql.query<{ tick: string | number }>(
      `insert into agent_tick (agent, tick) values ($1, 1)
       on conflict (agent) do update set tick = agent_tick.tick + 1 returning tick`,
      [agent],
    );
    return Number(row!.tick);
  }

  /** Records an intent and returns it; an id already taken (a window netted twice) keeps the first and returns undefined. */
  add(row: NewIntent): Promise<IntentRow | undefined> {
    return this.adding.push(row);
  }

  /** One insert for every intent in `rows`; an id already taken (or repeated) gets undefined. */
  private async insertAll(rows: readonly NewIntent[]): Promise<(IntentRow | undefined)[]> {
    const now = Date.now();
    const inserted = await this.sql.query<IntentRecord>(
      `insert into agent_intent (id, agent, tick, spec, state, batch_window, created_at)
       select * from unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
       on conflict (id) do nothing returning *`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.agent),
        rows.map((r) => r.tick),
        rows.map((r) => r.spec),
        rows.map((r) => r.state),
        rows.map((r) => r.batchWindow ?? null),
        rows.map(() => now),
      ],
    );
    const byId = new Map(inserted.map((r) => [r.id, toRow(r)]));
    return rows.map((r) => {
      const row = byId.get(r.id);
      byId.delete(r.id); // a repeated id: only its first occurrence was inserted
      return row;
    });
  }

  async pending(agent: string, state: "open" | "batched"): Promise<IntentRow[]> {
    return (
      await this.sql.query<IntentRecord>(
        "select * from agent_intent where agent = $1 and state = $2 order by created_at, id",
        [agent, state],
      )
    ).map(toRow);
  }

  async byId(id: string): Promise<IntentRow | undefined> {
    const [row] = await this.sql.query<IntentRecord>("select * from agent_intent where id = $1", [id]);
    return row && toRow(row);
  }

  /** Marks an intent finished; resolves once that is stored (settles arriving together share a statement). */
  settle(id: string, state: "done" | "failed" | "netted", result: string): Promise<void> {
    return this.settling.push({ id, state, result });
  }

  private async settleAll(rows: readonly Settle[]): Promise<undefined[]> {
    await this.sql.query(
      `update agent_intent as i set state = s.state, result = s.result
       from unnest($1::text[], $2::text[], $3::text[]) as s (id, state, result) where i.id = s.id`,
      [rows.map((r) => r.id), rows.map((r) => r.state), rows.map((r) => r.result)],
    );
    return rows.map(() => undefined);
  }

  /**
   * Deletes finished intents recorded before `before` (ms) and their transactions' journal rows,
   * so the journal stays the size of a day's work however long the runtime runs. Open and
   * batched intents stay, and so do the journal rows of their steps.
   */
  async prune(before: number): Promise<number> {
    await this.sql.query(
      `delete from relayed_write w using agent_intent i
       where i.state in ('done', 'failed', 'netted') and i.created_at < $1 and w.id like i.id || ':%'`,
      [before],
    );
    // Set-up writes (approvals, local funding) are checked on the chain before they are sent again.
    await this.sql.query("delete from relayed_write where id like 'setup:%' and created_at < $1", [before]);
    const deleted = await this.sql.query<{ id: string }>(
      "delete from agent_intent where state in ('done', 'failed', 'netted') and created_at < $1 returning id",
      [before],
    );
    return deleted.length;
  }

  /** Forgets every intent and tick (the chain they were meant for is gone). */
  async clear(): Promise<void> {
    await this.sql.query("delete from agent_intent");
    await this.sql.query("delete from agent_tick");
  }

  /** Counts by state, for the runtime's status line and the tests. */
  async counts(): Promise<Partial<Record<IntentState, number>>> {
    const rows = await this.sql.query<{ state: IntentState; n: string | number }>(
      "select state, count(*) as n from agent_intent group by state",
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }
}
