import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ActionLogAbi, AgentRegistryAbi } from "../../indexer/abis.ts";
import {
  type ActionToRecord,
  type ChainActionContext,
  recordAction,
  setWorkerOperator,
  type SwapOrder,
  swapExactIn,
} from "./actions.ts";
import { MEV_PROTECTIONS, nameOf, TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";
import { decodePayload } from "../../indexer/payload.ts";
import { readDeployment } from "../../lib/deployments.ts";
import type { ActionView, Tier, WorkerConfig, WorkerStatus } from "../strategy/index.ts";

export {
  type ActionToRecord,
  type ChainActionContext,
  type OperatorAnswer,
  type OperatorChange,
  type RecordedAction,
  recordAction,
  referenceOperator,
  requestWorkerOperator,
  type SignedWriteAnswer,
  type SignedWriteContext,
  setWorkerOperator,
  signedWrite,
  SlippageCapExceeded,
  type SwapOrder,
  type SwapResult,
  swapExactIn,
  workerOfToken,
} from "./actions.ts";

/**
 * The agent SDK: what anyone needs to write an agent against the ecosystem's contracts. Connect
 * with an operator key; read the agent's role and a worker's config; record an action; swap in a
 * pool within a slippage cap (refused before sending when the quote is beyond it, and guarded
 * on-chain by the minimum output computed from it); subscribe to new actions.
 */

export interface ConnectOptions {
  readonly rpcUrl: string;
  readonly privateKey: Hex;
  /** Default: the node's chain id. */
  readonly chainId?: number;
  /** Where deployments/<chainId>.json is (default: the working directory), or the addresses themselves. */
  readonly deploymentsRoot?: string;
  readonly contracts?: { readonly ActionLog: Address; readonly AgentRegistry: Address };
  /** Most ms one JSON-RPC call may take (default 10 s). */
  readonly timeoutMs?: number;
}

export interface Role {
  /** "none" when the key acts for nobody. */
  readonly tier: Tier | "none";
  /** The queen's or scout's NFT id. */
  readonly nftId?: bigint;
  /** The workers this key operates. */
  readonly workerIds: readonly bigint[];
}

export type Agent = Awaited<ReturnType<typeof connectAgent>>;

/**
 * What the actions of actions.ts are sent through, for one key: the MCP server builds its context
 * here too, so its tools and connectAgent reach the chain the same way.
 */
export async function chainActionContext(options: ConnectOptions) {
  const transport = http(options.rpcUrl, { timeout: options.timeoutMs ?? 10_000 });
  const client = createPublicClient({ transport }) as PublicClient;
  const chainId = options.chainId ?? (await client.getChainId());
  const deployed = options.contracts ?? (await readDeployment(chainId, options.deploymentsRoot)).contracts;
  const contracts = { ActionLog: deployed.ActionLog, AgentRegistry: deployed.AgentRegistry };
  const wallet = createWalletClient({
    account: privateKeyToAccount(options.privateKey),
    transport,
    chain: {
      id: chainId,
      name: `chain ${chainId}`,
      nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } },
    },
  });
  return { client, wallet, contracts, chainId } satisfies ChainActionContext & { chainId: number };
}

export async function connectAgent(options: ConnectOptions) {
  const actions = await chainActionContext(options);
  const { client, wallet, contracts } = actions;
  const { account } = wallet;
  const registry = { address: contracts.AgentRegistry, abi: AgentRegistryAbi } as const;
  return {
    address: account.address,
    client,

    async role(): Promise<Role> {
      const [tier, nftId] = await client.readContract({
        ...registry,
        functionName: "agentOfOperator",
        args: [account.address],
      });
      const count = await client.readContract({ ...registry, functionName: "workerCount" });
      const workerIds: bigint[] = [];
      for (let id = 1n; id <= count; id++) {
        const [operator] = await client.readContract({ ...registry, functionName: "workerAuth", args: [id] });
        if (getAddress(operator) === account.address) workerIds.push(id);
      }
      const name = nameOf(TIERS, tier);
      if (name !== "none") return { tier: name, nftId, workerIds };
      return { tier: workerIds.length > 0 ? "worker" : "none", workerIds };
    },

    async workerConfig(
      workerId: bigint,
    ): Promise<WorkerConfig & { status: WorkerStatus; agentNftId: bigint; token: Address }> {
      const w = await client.readContract({ ...registry, functionName: "getWorker", args: [workerId] });
      return {
        status: nameOf(WORKER_STATUSES, w.status),
        agentNftId: w.agentNftId,
        token: w.token,
        slippageCapBps: w.config.slippageCapBps,
        mevProtection: nameOf(MEV_PROTECTIONS, w.config.mevProtection),
        signalSubscriptions: [...w.config.signalSubscriptions],
      };
    },

    /** Records an action on the agent token with NFT id `targetNftId`; resolves once mined. */
    record(action: ActionToRecord) {
      return recordAction(actions, action);
    },

    /**
     * Hands worker `workerId` to `operator`; this key must own the token's agent NFT. Give the
     * reference runtime's operator (`referenceOperator`) to hand it back.
     */
    setWorkerOperator(workerId: bigint, operator: Address) {
      return setWorkerOperator(actions, { workerId, operator });
    },

    /** Swaps `amountIn` of `tokenIn` in `pool`, refusing (unsent) a quote beyond `slippageCapBps`. */
    swap(order: SwapOrder) {
      return swapExactIn(actions, order);
    },

    /** Calls `onAction` for every new action (optionally on one token); returns the unsubscribe. */
    onAction(
      onAction: (action: Omit<ActionView, "time">) => void | Promise<void>,
      filter: { targetNftId?: bigint } = {},
    ) {
      return client.watchContractEvent({
        address: contracts.ActionLog,
        abi: ActionLogAbi,
        eventName: "ActionRecorded",
        args: filter.targetNftId === undefined ? undefined : { targetTokenId: filter.targetNftId },
        pollingInterval: 500,
        onLogs: async (logs) => {
          for (const log of logs) {
            const a = log.args;
            await onAction({
              entryId: a.entryId!,
              targetNftId: a.targetTokenId!,
              tier: nameOf(TIERS, a.sourceTier!) as Tier,
              sourceAgentId: a.sourceAgentId!,
              operator: getAddress(a.operator!),
              actionType: a.actionType!,
              payload: decodePayload(a.payload!),
              reasonCode: a.reasonCode!,
              isOverride: a.isOverride!,
              block: log.blockNumber!,
              txHash: log.transactionHash!,
            });
          }
        },
      });
    },
  };
}
