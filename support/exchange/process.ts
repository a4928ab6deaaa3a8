/**
 * The exchange server as a child process of its own (`node exchange/server/main.ts`), for a test
 * that SIGKILLs it and a benchmark that keeps its CPU apart from the load generator's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { waitFor } from "../wait.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export interface ExchangeProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/**
 * Starts the server with `env` over this process's environment and resolves once
 * http://127.0.0.1:`port`/api/healthcheck answers 200; `nodeArgs` go before the script (a CPU
 * profile). Fails at once when the child exits first, and kills it after 60 s without an answer.
 */
export async function startExchangeProcess(
  port: number,
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  /** The child's working directory (where it reads deployments/ from with CHAIN_GATEWAY); default the repository. */
  cwd: string = ROOT,
): Promise<ExchangeProcess> {
  let output = "";
  const child = spawn(process.execPath, [...nodeArgs, resolve(ROOT, "exchange/server/main.ts")], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const watched = {
    name: "the exchange",
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    describeExit: () => `exited (${child.signalCode ?? `code ${child.exitCode}`})`,
    tail: () => output,
  };
  try {
    await waitFor(
      `the exchange to answer on port ${port}`,
      async () => (await fetch(`http://127.0.0.1:${port}/api/healthcheck`)).ok,
      { timeoutMs: 60_000, intervalMs: 100, alive: [watched], context: () => output },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return { child, output: () => output };
}
