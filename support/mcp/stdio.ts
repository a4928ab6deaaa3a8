import { join, resolve } from "node:path";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The MCP server over stdio as an agent's configuration starts it (`node mcp/main.ts` from the
 * checkout), with `env` (its platform URLs and keys) over the default environment; its stderr
 * piped so the tests' output stays theirs.
 */
export function stdioServer(env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, "mcp/main.ts")],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
  });
}
