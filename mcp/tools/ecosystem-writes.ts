import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type ApiKeyPair, signedCall } from "./exchange-writes.ts";
import { type Guard, idempotencyKeyOf, registerWriteTool, type ToolContext, tokenRef } from "./tool.ts";

const idempotencyKey = idempotencyKeyOf(
  "Idempotency-Key: a retry with the same key and arguments gets the first answer, never a second transaction",
);
const headersOf = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { "Idempotency-Key": key };

/**
 * Spawn, vote and propose through the ecosystem API's signed writes (api/README.md "Signed
 * writes"), signed with the caller's exchange key as the web app signs them; relayed on-chain by
 * the API, which answers the transaction it made or SPEC.md's code.
 */
export function registerEcosystemWrites(server: McpServer, context: ToolContext, guard: Guard, keys: ApiKeyPair) {
  const tool = <I extends z.ZodObject>(
    name: string,
    config: { title: string; description: string; input: I },
    run: (args: z.output<I>, signal: AbortSignal) => ReturnType<typeof signedCall>,
  ) => registerWriteTool(server, guard, name, config, run);
  const post = (path: string, body: unknown, key: string | undefined, signal: AbortSignal) =>
    signedCall(context, keys, "POST", path, { side: "ecosystem", body, headers: headersOf(key) }, signal);

  tool(
    "spawn_token",
    {
      title: "Spawn an agent token",
      description:
        "POST /api/launchpad/spawn (signed; the fee is charged on the exchange): token, pool, worker and txHash, " +
        "or INVALID_SYMBOL, SYMBOL_TAKEN, COOLDOWN_ACTIVE, INSUFFICIENT_FEE...",
      input: z.object({
        name: z.string().min(1).max(50),
        symbol: z.string().regex(/^[A-Z]{3,5}$/),
        totalSupply: z
          .string()
          .regex(/^[1-9]\d{0,12}$/)
          .optional()
          .describe("Whole tokens, default 1000000000"),
        poolSide: z.enum(["STABLE", "WRAPPED_NATIVE"]).optional(),
        metadata: z
          .object({ description: z.string().max(512), logoUri: z.string().max(256), website: z.string().max(256) })
          .partial()
          .optional(),
        idempotencyKey,
      }),
    },
    ({ idempotencyKey: key, ...body }, signal) => post("/api/launchpad/spawn", body, key, signal),
  );
  tool(
    "vote",
    {
      title: "Vote on a worker proposal",
      description:
        "POST /api/agents/workers/:tokenId/vote (signed): the vote with its txHash and the current tally, or " +
        "ALREADY_VOTED, PROPOSAL_CLOSED, NO_HOLDINGS, LEVEL_TOO_LOW...",
      input: z.object({
        tokenId: tokenRef,
        proposalId: z.string().regex(/^\d{1,78}$/),
        vote: z.enum(["yes", "no", "abstain"]),
        comment: z.string().max(280).optional(),
        idempotencyKey,
      }),
    },
    ({ tokenId, idempotencyKey: key, ...body }, signal) =>
      post(`/api/agents/workers/${encodeURIComponent(tokenId)}/vote`, body, key, signal),
  );
  tool(
    "propose",
    {
      title: "Open a worker proposal",
      description:
        "POST /api/agents/workers/:tokenId/proposals (signed): the new proposal, pending for the voting delay.",
      input: z.object({
        tokenId: tokenRef,
        config: z.object({
          slippageCapBps: z.number().int().min(0).max(10_000),
          mevProtection: z.enum(["off", "private_relay", "batch_auction"]),
          signalSubscriptions: z.array(z.string().min(1).max(32)).max(16),
        }),
        description: z.string().max(1_000).optional(),
        idempotencyKey,
      }),
    },
    ({ tokenId, idempotencyKey: key, ...body }, signal) =>
      post(`/api/agents/workers/${encodeURIComponent(tokenId)}/proposals`, body, key, signal),
  );
  tool(
    "set_worker_operator",
    {
      title: "Hand a token's worker to an agent",
      description:
        "POST /api/agents/workers/:tokenId/operator (signed; the caller's linked address must own the token's agent " +
        "NFT): the worker's new operator, after which the reference runtime leaves it alone and that operator's " +
        "actions are indexed under the worker. Hand it back by naming the runtime's operator. NOT_TOKEN_OWNER when " +
        "the caller does not own the token.",
      input: z.object({
        tokenId: tokenRef,
        operator: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
        idempotencyKey,
      }),
    },
    ({ tokenId, idempotencyKey: key, ...body }, signal) =>
      post(`/api/agents/workers/${encodeURIComponent(tokenId)}/operator`, body, key, signal),
  );
}
