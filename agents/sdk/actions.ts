import {
  type Account,
  type Address,
  type Chain,
  decodeEventLog,
  erc20Abi,
  getAddress,
  maxUint256,
  type Hex,
  type PublicClient,
  stringToHex,
  type Transport,
  type WalletClient,
} from "viem";
import { signRequest } from "../../exchange/adapters/auth/index.ts";
import { ActionLogAbi, AgentPoolAbi, AgentRegistryAbi } from "../../indexer/abis.ts";
import { impactBps, minOutWithinCap, type PoolReserves, quote } from "../pool/index.ts";

/**
 * The agent actions, one implementation each: the SDK's connectAgent and the MCP server's tools
 * both call these, so an action means the same thing whichever way an agent takes it. Each takes
 * what it acts through as an argument (clients, addresses, a fetch) and holds no state.
 */

/** What an on-chain action is sent through: reads, the acting account's wallet, the contracts. */
export interface ChainActionContext {
  readonly client: PublicClient;
  readonly wallet: WalletClient<Transport, Chain | undefined, Account>;
  readonly contracts: { readonly ActionLog: Address; readonly AgentRegistry: Address };
  /** Most ms to wait for a receipt (default 60 s). */
  readonly receiptTimeoutMs?: number;
}

export interface ActionToRecord {
  /** The agent token's NFT id (ActionLog's targetTokenId). */
  readonly targetNftId: bigint;
  readonly actionType: string;
  /** Stored as its JSON text, as the indexer and the runtime decode it. */
  readonly payload: unknown;
  readonly reasonCode: string;
}

export interface RecordedAction {
  readonly entryId: bigint;
  readonly txHash: Hex;
}

export interface OperatorChange {
  readonly workerId: bigint;
  readonly previousOperator: Address;
  readonly operator: Address;
  readonly txHash: Hex;
}

async function mined(ctx: ChainActionContext, hash: Hex) {
  const receipt = await ctx.client.waitForTransactionReceipt({ hash, timeout: ctx.receiptTimeoutMs ?? 60_000 });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

/**
 * Records an action on a token as the wallet's account; resolves once mined. The ActionLog
 * decides as whom it counts (queen, scout, or the worker of the token the account operates) and
 * refuses an account acting for nobody there (the gas estimate throws its `UnauthorizedAgent`
 * before anything is sent).
 */
export async function recordAction(ctx: ChainActionContext, action: ActionToRecord): Promise<RecordedAction> {
  const hash = await ctx.wallet.writeContract({
    chain: ctx.wallet.chain ?? null,
    address: ctx.contracts.ActionLog,
    abi: ActionLogAbi,
    functionName: "record",
    args: [action.targetNftId, action.actionType, stringToHex(JSON.stringify(action.payload)), action.reasonCode],
  });
  const receipt = await mined(ctx, hash);
  for (const log of receipt.logs) {
    if (getAddress(log.address) !== getAddress(ctx.contracts.ActionLog)) continue;
    const event = decodeEventLog({ abi: ActionLogAbi, data: log.data, topics: log.topics });
    if (event.eventName === "ActionRecorded") return { entryId: event.args.entryId, txHash: hash };
  }
  throw new Error(`transaction ${hash} recorded no action`);
}

/**
 * Hands a worker to `operator`, sent by the wallet's account, which must own the token's agent
 * NFT (or be a manager): the registry's `NotAgentOwner` otherwise, thrown by the gas estimate
 * before anything is sent. Handing it back is the same call with the reference runtime's operator
 * (`referenceOperator`).
 */
export async function setWorkerOperator(
  ctx: ChainActionContext,
  change: { readonly workerId: bigint; readonly operator: Address },
): Promise<OperatorChange> {
  const hash = await ctx.wallet.writeContract({
    chain: ctx.wallet.chain ?? null,
    address: ctx.contracts.AgentRegistry,
    abi: AgentRegistryAbi,
    functionName: "setWorkerOperator",
    args: [change.workerId, getAddress(change.operator)],
  });
  const receipt = await mined(ctx, hash);
  for (const log of receipt.logs) {
    if (getAddress(log.address) !== getAddress(ctx.contracts.AgentRegistry)) continue;
    const event = decodeEventLog({ abi: AgentRegistryAbi, data: log.data, topics: log.topics });
    if (event.eventName === "WorkerOperatorChanged")
      return {
        workerId: event.args.workerId,
        previousOperator: getAddress(event.args.previousOperator),
        operator: getAddress(event.args.newOperator),
        txHash: hash,
      };
  }
  throw new Error(`transaction ${hash} changed no operator`);
}

/** The quote's price impact is beyond the cap: nothing was sent. */
export class SlippageCapExceeded extends Error {
  readonly impactBps: bigint;
  readonly capBps: bigint;

  constructor(impactBps: bigint, capBps: bigint) {
    super(`the swap's price impact (${impactBps} bps) is beyond the slippage cap (${capBps} bps); nothing was sent`);
    this.name = "SlippageCapExceeded";
    this.impactBps = impactBps;
    this.capBps = capBps;
  }
}

export interface SwapOrder {
  readonly pool: Address;
  /** The pool's pair asset to buy the agent token, the agent token to sell it. */
  readonly tokenIn: Address;
  readonly amountIn: bigint;
  readonly slippageCapBps: number;
}

export interface SwapResult {
  readonly amountOut: bigint;
  readonly minAmountOut: bigint;
  readonly txHash: Hex;
}

/**
 * Swaps `amountIn` of `tokenIn` in `pool` as the wallet's account: quoted with the contracts'
 * integer math (agents/pool), refused unsent (SlippageCapExceeded) when the quote's impact is
 * beyond the cap, and guarded on-chain by the minimum output the cap allows. Approves the pool
 * first when its allowance is short; resolves once mined.
 */
export async function swapExactIn(ctx: ChainActionContext, order: SwapOrder): Promise<SwapResult> {
  const { client, wallet } = ctx;
  const { pool, tokenIn, amountIn } = order;
  const owner = wallet.account.address;
  const [[reserveToken, reservePair, virtualPair], feePips, pairAsset] = await Promise.all([
    client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "getReserves" }),
    client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "feePips" }),
    client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "pairAsset" }),
  ]);
  const reserves: PoolReserves = { reserveToken, reservePair, virtualPair, feePips: BigInt(feePips) };
  const isBuy = getAddress(tokenIn) === getAddress(pairAsset);
  const cap = BigInt(order.slippageCapBps);
  const impact = impactBps(reserves, isBuy, amountIn, quote(reserves, isBuy, amountIn).amountOut);
  if (impact > cap) throw new SlippageCapExceeded(impact, cap);
  const allowance = await client.readContract({
    address: tokenIn,
    abi: erc20Abi,
    functionName: "allowance",
    args: [owner, pool],
  });
  if (allowance < amountIn)
    await mined(
      ctx,
      await wallet.writeContract({
        chain: wallet.chain ?? null,
        address: tokenIn,
        abi: erc20Abi,
        functionName: "approve",
        args: [pool, maxUint256],
      }),
    );
  const minAmountOut = minOutWithinCap(reserves, isBuy, amountIn, cap);
  const hash = await wallet.writeContract({
    chain: wallet.chain ?? null,
    address: pool,
    abi: AgentPoolAbi,
    functionName: "swapExactIn",
    args: [tokenIn, amountIn, minAmountOut, owner],
  });
  const receipt = await mined(ctx, hash);
  for (const log of receipt.logs) {
    try {
      const event = decodeEventLog({ abi: AgentPoolAbi, data: log.data, topics: log.topics });
      if (event.eventName === "Swap") return { amountOut: event.args.amountOut, minAmountOut, txHash: hash };
    } catch {}
  }
  throw new Error(`transaction ${hash} made no swap`);
}

/** The worker of a token named by its address or its agent NFT id; undefined when it has none. */
export async function workerOfToken(
  client: PublicClient,
  registry: Address,
  token: Address | bigint,
): Promise<bigint | undefined> {
  const contract = { address: registry, abi: AgentRegistryAbi } as const;
  const nftId =
    typeof token === "bigint"
      ? token
      : await client.readContract({ ...contract, functionName: "agentOfToken", args: [token] });
  if (nftId === 0n) return undefined;
  const workerId = await client.readContract({ ...contract, functionName: "workerOfAgent", args: [nftId] });
  return workerId === 0n ? undefined : workerId;
}

/** The operator a worker gets at spawn, the reference runtime's: hand a worker back to it. */
export function referenceOperator(client: PublicClient, spawner: Address): Promise<Address> {
  return client.readContract({
    address: spawner,
    abi: [
      {
        type: "function",
        name: "workerOperator",
        stateMutability: "view",
        inputs: [],
        outputs: [{ name: "", type: "address" }],
      },
    ] as const,
    functionName: "workerOperator",
  });
}

/** Where a signed ecosystem write goes and who signs it: an exchange API key pair. */
export interface SignedWriteContext {
  /** The ecosystem API's origin, e.g. http://127.0.0.1:42069. */
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly privateKey: string;
  /** `fetch` by default; an in-process app's `request` works too. */
  readonly fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  /** API-Timestamp source (epoch ms; default Date.now). Two writes of one key need two stamps. */
  readonly now?: () => number;
}

/** A signed write's answer: its body, or the API's `{code, message}` with the HTTP status. */
export type SignedWriteAnswer<T> =
  | { readonly ok: true; readonly status: number; readonly body: T }
  | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string };

export interface OperatorAnswer {
  readonly worker: { readonly id: number; readonly agentNftId: number; readonly tokenAddress: string };
  readonly previousOperator: string;
  readonly operator: string;
  readonly txHash: string;
  readonly changedAt: number;
}

/**
 * Hands a token's worker to `operator` through the ecosystem API's signed write
 * (POST /api/agents/workers/{tokenId}/operator): the relayer pays the gas, and the API key's
 * user must own the token (its linked chain address holds the agent NFT), else 403
 * NOT_TOKEN_OWNER. `tokenRef` is the token's address or its agent NFT id.
 */
export function requestWorkerOperator(
  ctx: SignedWriteContext,
  tokenRef: string,
  operator: Address,
  options: { readonly idempotencyKey?: string } = {},
): Promise<SignedWriteAnswer<OperatorAnswer>> {
  return signedWrite(ctx, `/api/agents/workers/${encodeURIComponent(tokenRef)}/operator`, { operator }, options);
}

/** One signed POST to the ecosystem API, signed as SPEC.md's Authentication says, API-Timestamp included. */
export async function signedWrite<T>(
  ctx: SignedWriteContext,
  path: string,
  body: object,
  options: { readonly idempotencyKey?: string } = {},
): Promise<SignedWriteAnswer<T>> {
  const url = `${ctx.baseUrl.replace(/\/+$/, "")}${path}`;
  const text = JSON.stringify(body);
  const headers = {
    ...signRequest({
      publicKey: ctx.publicKey,
      privateKey: ctx.privateKey,
      method: "POST",
      url,
      body: text,
      timestamp: (ctx.now ?? Date.now)(),
    }),
    "content-type": "application/json",
    ...(options.idempotencyKey === undefined ? {} : { "Idempotency-Key": options.idempotencyKey }),
  };
  const response = await (ctx.fetch ?? fetch)(url, { method: "POST", headers, body: text });
  const answer = (await response.json().catch(() => undefined)) as
    | (T & { code?: undefined })
    | { code: string; message: string }
    | undefined;
  if (response.ok) return { ok: true, status: response.status, body: answer as T };
  const failure = answer as { code?: string; message?: string } | undefined;
  return {
    ok: false,
    status: response.status,
    code: failure?.code ?? "INTERNAL",
    message: failure?.message ?? `HTTP ${response.status}`,
  };
}
