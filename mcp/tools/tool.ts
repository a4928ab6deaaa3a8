import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { toolError, toolResult } from "../errors.ts";
import { type Query, type ReadTarget, readJson } from "../http-client.ts";

/** What every tool of a session shares: where the platform answers, and the session's bounds. */
export interface ToolContext {
  ecosystem: ReadTarget;
  exchange: ReadTarget;
  /** Most ms one call out may take (AbortSignal.timeout). */
  timeoutMs: number;
  /** Tool calls per minute for this session; refused calls answer RATE_LIMITED. */
  callsPerMinute: number;
  now?: () => number;
}

/** Fixed one-minute window per session, as the REST per-IP limiter counts. */
export function createCallQuota(perMinute: number, now: () => number = Date.now) {
  let windowStart = now();
  let used = 0;
  return (): number | undefined => {
    const t = now();
    if (t - windowStart >= 60_000) {
      windowStart = t;
      used = 0;
    }
    if (used >= perMinute) return Math.ceil((windowStart + 60_000 - t) / 1000);
    used++;
    return undefined;
  };
}

export interface ReadToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  side: "ecosystem" | "exchange";
  request: (args: z.output<I>) => { path: string; query?: Query };
  /** Wraps a bare array answer in an object: a tool's structured output must be an object. */
  wrap?: "items";
}

export type Guard = (
  run: (signal: AbortSignal) => Promise<CallToolResult>,
  extra: { signal: AbortSignal },
) => Promise<CallToolResult>;

/** Per-call quota and deadline around a handler; a throw becomes INTERNAL, never a crash. */
export function createGuard(context: ToolContext): Guard {
  const quota = createCallQuota(context.callsPerMinute, context.now);
  return async (run, extra) => {
    const retryAfter = quota();
    if (retryAfter !== undefined)
      return toolError({ code: "RATE_LIMITED", message: `too many calls in this session; retry in ${retryAfter} s` });
    // One controller and timer, cleared at the end: AbortSignal.any with AbortSignal.timeout
    // leaves a timer and weak listeners behind per call, measurable at hundreds of calls a second.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), context.timeoutMs);
    const cancel = () => controller.abort();
    extra.signal.addEventListener("abort", cancel, { once: true });
    try {
      return await run(controller.signal);
    } catch {
      return toolError(
        controller.signal.aborted
          ? { code: "TIMEOUT", message: "the call took too long" }
          : { code: "INTERNAL", message: "the call failed" },
      );
    } finally {
      clearTimeout(timer);
      extra.signal.removeEventListener("abort", cancel);
    }
  };
}

/** Tools answering their output schema's own parse or the REST route's own value: the SDK need not check. */
export const READ_TOOLS_PARSED = new Set<string>();

/** A read tool is one REST GET: the route's answer is the output (parsed by its schema when it came as JSON). */
export function registerReadTool<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  context: ToolContext,
  guard: Guard,
  spec: ReadToolSpec<I, O>,
) {
  const target = context[spec.side];
  READ_TOOLS_PARSED.add(spec.name);
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    // The SDK has parsed args against spec.input already; its generic callback type cannot follow I.
    ((args: unknown, extra: { signal: AbortSignal }) =>
      guard(async (signal) => {
        const { path, query } = spec.request(args as z.output<I>);
        const answer = await readJson(target, path, query, signal);
        if (!answer.ok) return toolError(answer.error);
        const body = spec.wrap ? { [spec.wrap]: answer.body } : answer.body;
        // In process the answer is the value the REST route serves, built to its response schema
        // (REST sends it unchecked too): parsing it again cost a twentieth of an MCP call
        // (bench:mcp). JSON from afar is parsed: that strips keys the schema lacks, which the
        // client would refuse (additionalProperties).
        if (answer.inProcess) return toolResult(body as Record<string, unknown>);
        const parsed = spec.output.safeParse(body);
        if (!parsed.success) return toolError({ code: "INTERNAL", message: "unexpected answer from the platform" });
        return toolResult(parsed.data as Record<string, unknown>);
      }, extra)) as never,
  );
}

// Inputs are JSON-typed (numbers, booleans), unlike the REST query schemas that parse strings.
export const page = z.number().int().min(1).max(1_000_000_000).optional().describe("1-based page, default 1");
export const pageSize = z.number().int().min(1).max(100).optional().describe("Items per page, 1..100, default 20");
export const tokenRef = z
  .string()
  .regex(/^(0x[0-9a-fA-F]{40}|[0-9]{1,78})$/)
  .describe("The agent token's address or its registry NFT id");
export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/** An idempotency key as the ecosystem's Idempotency-Key takes it; `meaning` says what a retry gets. */
export const idempotencyKeyOf = (meaning: string) =>
  z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/)
    .optional()
    .describe(meaning);

export interface WriteToolSpec<I extends z.ZodObject> {
  title: string;
  description: string;
  input: I;
  /** The answer's schema; an object of any keys unless given. */
  output?: z.ZodObject;
  readOnly?: boolean;
}

/** A signed or on-chain tool: the session's quota and deadline around `run`, which never throws. */
export function registerWriteTool<I extends z.ZodObject>(
  server: McpServer,
  guard: Guard,
  name: string,
  spec: WriteToolSpec<I>,
  run: (args: z.output<I>, signal: AbortSignal) => Promise<CallToolResult>,
) {
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output ?? z.looseObject({}),
      annotations: { readOnlyHint: spec.readOnly ?? false, destructiveHint: false, openWorldHint: true },
    },
    // The SDK has parsed args against spec.input already; its generic callback type cannot follow I.
    ((args: unknown, extra: { signal: AbortSignal }) =>
      guard((signal) => run(args as z.output<I>, signal), extra)) as never,
  );
}
