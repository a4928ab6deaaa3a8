import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A refusal the client can act on: SPEC.md's stable code, never a stack or an internal detail. */
export interface ToolFailure {
  code: string;
  message: string;
}

/** Tool errors are values (isError + `{code,message}` text), so a bad call never becomes a crash. */
export const toolError = ({ code, message }: ToolFailure): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify({ code, message }) }],
});

export const toolResult = (data: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(data) }],
  structuredContent: data,
});

/**
 * The SDK answers a call it refuses before our handler runs (arguments failing the input schema,
 * an unknown tool) with a free-text tool error, "MCP error -32602: Input validation error: ...".
 * This turns those into SPEC.md's `{code,message}` as well: INVALID_PARAM naming the argument,
 * NOT_FOUND for an unknown tool.
 */
export function sdkRefusal(text: string): ToolFailure {
  const message = text.replace(/^MCP error -?\d+: /, "");
  if (/^Tool \S+ (not found|disabled)$/.test(message)) return { code: "NOT_FOUND", message };
  if (/^(Input validation error|Invalid arguments)/.test(message))
    return { code: "INVALID_PARAM", message: message.replace(/^Input validation error: /, "") };
  return { code: "INTERNAL", message: "the call failed" };
}
