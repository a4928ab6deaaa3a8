import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { rpcRequest } from "../../lib/chain-rpc.ts";

/**
 * Starts the platform's processes for `npm start`, sends their output to `.data/logs/`, and
 * stops every one of them (and only them) when it is asked to stop or when one dies.
 */
export class Supervisor {
  private readonly children: { name: string; child: ChildProcess }[] = [];
  private stopping = false;

  private readonly logDir: string;

  constructor(logDir = join(process.cwd(), ".data", "logs")) {
    this.logDir = logDir;
    mkdirSync(logDir, { recursive: true });
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.on(signal, () => void this.stop(0));
    }
  }

  /** Starts a long-running service; if it exits on its own, everything stops. */
  service(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
    const logPath = join(this.logDir, `${name}.log`);
    const log = createWriteStream(logPath, { flags: "w" });
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    this.children.push({ name, child });
    child.on("exit", (code, signal) => {
      if (this.stopping) return;
      console.error(`${name} exited (${signal ?? `code ${code}`}); see ${logPath}`);
      void this.stop(1);
    });
    return child;
  }

  /** Runs a command to completion with inherited output; rejects on failure. */
  async task(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: "inherit" });
    this.children.push({ name, child });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`${name} failed with exit code ${code}`);
  }

  async stop(exitCode: number): Promise<never> {
    if (!this.stopping) {
      this.stopping = true;
      const running = this.children.filter(({ child }) => child.exitCode === null && child.signalCode === null);
      for (const { child } of running) child.kill("SIGTERM");
      await Promise.all(
        running.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => {
                child.kill("SIGKILL");
                resolve();
              }, 5000);
              child.on("exit", () => {
                clearTimeout(timer);
                resolve();
              });
            }),
        ),
      );
    }
    process.exit(exitCode);
  }
}

/** Polls `check` until it resolves true, or throws after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** True when a JSON-RPC endpoint answers eth_chainId. */
export async function rpcAnswers(url: string): Promise<boolean> {
  await rpcRequest(url, "eth_chainId", [], { timeoutMs: 2000 });
  return true;
}
