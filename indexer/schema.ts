import { index, onchainTable, primaryKey } from "ponder";

/**
 * The indexed state of the ecosystem. Every table is written only by the handlers in
 * indexer/handlers and read by api/. Amounts are exact (numeric bigint) in base units; times are
 * Unix seconds of the block that did the change. Addresses are lower-case hex.
 *
 * Tables are shaped so a spawn's events can arrive in log order (token mints, pool sync,
 * registry NFT and worker before AgentSpawned) without any handler needing another's row.
 */

/** One row per agent token (from AgentSpawned). */
export const agentToken = onchainTable(
  "agent_token",
  (t) => ({
    address: t.hex().primaryKey(),
    nftId: t.bigint().notNull(),
    workerId: t.bigint().notNull(),
    name: t.text().notNull(),
    symbol: t.text().notNull(),
    decimals: t.integer().notNull(),
    totalSupply: t.bigint().notNull(),
    owner: t.hex().notNull(),
    pool: t.hex().notNull(),
    poolSide: t.text().notNull(),
    pairAsset: t.hex().notNull(),
    feeTier: t.integer().notNull(),
    spawnFeeBurned: t.bigint().notNull(),
    spawnedAt: t.integer().notNull(),
    spawnBlock: t.bigint().notNull(),
    /** Log index of AgentSpawned in its block: with spawnBlock, the spawn's place in chain order (the launchpad stream). */
    spawnLogIndex: t.integer().notNull(),
    spawnTxHash: t.hex().notNull(),
  }),
  (table) => ({
    nftIdx: index().on(table.nftId),
    spawnedIdx: index().on(table.spawnedAt),
    sideIdx: index().on(table.poolSide, table.spawnedAt),
    chainOrderIdx: index().on(table.spawnBlock, table.spawnLogIndex),
  }),
);

/**
 * Holder count per token: accounts with a balance other than the token's pool, the zero address
 * and the burn address (indexer/handlers/token.ts). Kept apart from agent_token because mints
 * precede AgentSpawned.
 */
export const holderCount = onchainTable(
  "holder_count",
  (t) => ({
    token: t.hex().primaryKey(),
    holders: t.integer().notNull(),
  }),
  (table) => ({ holdersIdx: index().on(table.holders) }),
);

/** Balance of every holder of every agent token (from Transfer), so holder counts are exact. */
export const holding = onchainTable(
  "holding",
  (t) => ({
    token: t.hex().notNull(),
    account: t.hex().notNull(),
    balance: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.token, table.account] }),
    /** The holders list: balance descending, address ascending (an ORDER BY ... OFFSET walks it). */
    rankIdx: index().on(table.token, table.balance.desc(), table.account),
  }),
);

/**
 * Pool state: reserves from Sync, activity from Swap. TVL is the real pair reserve, in the pair
 * asset's base units: the virtual reserve sets the launch price but was never deposited.
 */
export const pool = onchainTable(
  "pool",
  (t) => ({
    address: t.hex().primaryKey(),
    token: t.hex().notNull(),
    pairAsset: t.hex().notNull(),
    side: t.text().notNull(),
    feeTier: t.integer().notNull(),
    reserveToken: t.bigint().notNull(),
    reservePair: t.bigint().notNull(),
    /** The API's TVL is reservePair: real reserves only, never the virtual one. */
    virtualPair: t.bigint().notNull(),
    swapCount: t.integer().notNull(),
    volumeTotal: t.bigint().notNull(),
    lastTradeAt: t.integer(),
    createdAt: t.integer().notNull(),
  }),
  (table) => ({ tokenIdx: index().on(table.token) }),
);

/** Every swap. `pairVolume` is the pair-asset side (in for buys, out for sells). */
export const swap = onchainTable(
  "swap",
  (t) => ({
    id: t.text().primaryKey(),
    pool: t.hex().notNull(),
    token: t.hex().notNull(),
    sender: t.hex().notNull(),
    recipient: t.hex().notNull(),
    isBuy: t.boolean().notNull(),
    amountIn: t.bigint().notNull(),
    amountOut: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    pairVolume: t.bigint().notNull(),
    tokenVolume: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    /** Log index of the Swap in its block: orders swaps within a block (chain order). */
    logIndex: t.integer().notNull(),
    /**
     * The swap's number in its pool, 1, 2, 3... in chain order (pool.swapCount when it was
     * indexed): dense, so a page of the pool's trades is a range of it at any depth.
     */
    seq: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({
    tokenTimeIdx: index().on(table.token, table.timestamp),
    timeIdx: index().on(table.timestamp),
    chainOrderIdx: index().on(table.blockNumber, table.logIndex),
    poolSeqIdx: index().on(table.pool, table.seq),
  }),
);

/**
 * OHLC candles per pool for every interval of /api/ohlc (indexer/candles.ts), upserted by the
 * Swap handler. Prices are pair-asset base units per token base unit x 10^36 (truncated);
 * volumes are base units of each side. Buckets without swaps have no row.
 */
export const poolCandle = onchainTable(
  "pool_candle",
  (t) => ({
    pool: t.hex().notNull(),
    interval: t.text().notNull(),
    /** The bucket's start, Unix seconds (UTC calendar months and years for month and year). */
    bucketStart: t.integer().notNull(),
    open: t.bigint().notNull(),
    high: t.bigint().notNull(),
    low: t.bigint().notNull(),
    close: t.bigint().notNull(),
    volumePair: t.bigint().notNull(),
    volumeToken: t.bigint().notNull(),
    trades: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.pool, table.interval, table.bucketStart] }) }),
);

/** Liquidity added (Mint) or removed (Burn). */
export const liquidityEvent = onchainTable(
  "liquidity_event",
  (t) => ({
    id: t.text().primaryKey(),
    pool: t.hex().notNull(),
    kind: t.text().notNull(),
    provider: t.hex().notNull(),
    amountToken: t.bigint().notNull(),
    amountPair: t.bigint().notNull(),
    shares: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ poolIdx: index().on(table.pool, table.timestamp) }),
);

/**
 * Every agent NFT of the registry: kind token (with metadata and boost state), queen or scout
 * (with operator). `owner` follows ERC-721 transfers.
 */
export const agentNft = onchainTable(
  "agent_nft",
  (t) => ({
    nftId: t.bigint().primaryKey(),
    kind: t.text().notNull(),
    token: t.hex(),
    /** The worker of a token NFT, set when the worker is created. */
    workerId: t.bigint(),
    operator: t.hex(),
    owner: t.hex().notNull(),
    description: t.text().notNull(),
    logoUri: t.text().notNull(),
    website: t.text().notNull(),
    boostTier: t.integer(),
    boostExpiresAt: t.integer(),
    registeredAt: t.integer().notNull(),
  }),
  (table) => ({ kindIdx: index().on(table.kind), tokenIdx: index().on(table.token) }),
);

/**
 * Workers: one per agent token. Status and config follow registry events. `status` is the status
 * the registry stored; an override's suspension (`suspendedUntil` set) ends by itself at that
 * time, with no event, so readers take the status as of now from api/shared/worker-status.ts.
 */
export const worker = onchainTable(
  "worker",
  (t) => ({
    id: t.bigint().primaryKey(),
    agentNftId: t.bigint().notNull(),
    token: t.hex().notNull(),
    operator: t.hex().notNull(),
    status: t.text().notNull(),
    /** An override's suspension: when it ends (null: none, or a manager's, which has no end). */
    suspendedUntil: t.integer(),
    /** Tier of the override that suspended it (queen or scout). */
    suspendedByTier: t.text(),
    /** The status it returns to when the suspension ends. */
    resumeStatus: t.text(),
    deployedAt: t.integer().notNull(),
    lastActiveAt: t.integer().notNull(),
    slippageCapBps: t.integer().notNull(),
    mevProtection: t.text().notNull(),
    signalSubscriptions: t.text().array().notNull(),
    /** Actions recorded on the worker's token, by any tier. */
    totalActions: t.integer().notNull(),
    lastOverrideAt: t.integer(),
    overridingTier: t.text(),
  }),
  (table) => ({
    statusIdx: index().on(table.status, table.id),
    tokenIdx: index().on(table.token),
    nftIdx: index().on(table.agentNftId),
  }),
);

/** The action log. `payload` is the decoded JSON object (null when the bytes are not JSON). */
export const action = onchainTable(
  "action",
  (t) => ({
    entryId: t.bigint().primaryKey(),
    targetTokenId: t.bigint().notNull(),
    sourceTier: t.text().notNull(),
    sourceAgentId: t.bigint().notNull(),
    operator: t.hex().notNull(),
    actionType: t.text().notNull(),
    payload: t.json(),
    payloadRaw: t.hex().notNull(),
    reasonCode: t.text().notNull(),
    isOverride: t.boolean().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({
    tokenIdx: index().on(table.targetTokenId, table.entryId),
    typeIdx: index().on(table.actionType, table.entryId),
    tierIdx: index().on(table.sourceTier, table.entryId),
    timeIdx: index().on(table.timestamp),
  }),
);

/**
 * Actions per target token and hour (`hour` = hourOf(timestamp), indexer/action-hours.ts), so a 24-hour count is a
 * sum of whole hours plus one partial hour instead of a scan of every action in the window.
 */
export const actionHour = onchainTable(
  "action_hour",
  (t) => ({
    targetTokenId: t.bigint().notNull(),
    hour: t.integer().notNull(),
    actions: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.targetTokenId, table.hour] }) }),
);

/** Worker-config proposals with their running tally. */
export const proposal = onchainTable(
  "proposal",
  (t) => ({
    id: t.bigint().primaryKey(),
    workerId: t.bigint().notNull(),
    token: t.hex().notNull(),
    proposer: t.hex().notNull(),
    /** When it was proposed; voting opens at startTime (weights frozen just before it). */
    proposedAt: t.integer().notNull(),
    startTime: t.integer().notNull(),
    endTime: t.integer().notNull(),
    quorumThreshold: t.bigint().notNull(),
    passingThresholdBps: t.integer().notNull(),
    slippageCapBps: t.integer().notNull(),
    mevProtection: t.text().notNull(),
    signalSubscriptions: t.text().array().notNull(),
    description: t.text().notNull(),
    yesWeight: t.bigint().notNull(),
    noWeight: t.bigint().notNull(),
    abstainWeight: t.bigint().notNull(),
    voteCount: t.integer().notNull(),
    executedAt: t.integer(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ workerIdx: index().on(table.workerId, table.endTime) }),
);

/** Votes, weighted by the voter's agent-token votes at the proposal's snapshot. */
export const vote = onchainTable(
  "vote",
  (t) => ({
    voteId: t.bigint().primaryKey(),
    proposalId: t.bigint().notNull(),
    voter: t.hex().notNull(),
    support: t.text().notNull(),
    weight: t.bigint().notNull(),
    comment: t.text().notNull(),
    relayed: t.boolean().notNull(),
    votedAt: t.integer().notNull(),
    /** Block and log index of VoteCast: the vote's place in chain order (the launchpad stream). */
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({
    proposalIdx: index().on(table.proposalId),
    voterIdx: index().on(table.voter, table.proposalId),
    chainOrderIdx: index().on(table.blockNumber, table.logIndex),
  }),
);

/** Every boost purchase; the current state per token lives on agent_nft. */
export const boost = onchainTable(
  "boost",
  (t) => ({
    id: t.text().primaryKey(),
    agentNftId: t.bigint().notNull(),
    token: t.hex().notNull(),
    buyer: t.hex().notNull(),
    tier: t.integer().notNull(),
    expiresAt: t.integer().notNull(),
    paid: t.bigint().notNull(),
    timestamp: t.integer().notNull(),
    /** Block and log index of Boosted: the boost's place in chain order (the launchpad stream). */
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    txHash: t.hex().notNull(),
  }),
  (table) => ({ nftIdx: index().on(table.agentNftId), chainOrderIdx: index().on(table.blockNumber, table.logIndex) }),
);

/** The newest block any handler has seen: the API's clock for "last 24 hours" on a chain whose
 * time may run ahead of the wall clock (a local node moved forward by the seed). */
export const chainHead = onchainTable("chain_head", (t) => ({
  chainId: t.integer().primaryKey(),
  blockNumber: t.bigint().notNull(),
  timestamp: t.integer().notNull(),
}));
