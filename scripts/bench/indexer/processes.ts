import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

/**
 * Everything the benchmark starts, so it can all be stopped on success, error or Ctrl-C.
 * Children run in their own process group (detached) because Ponder starts an esbuild service
 * of its own: signalling the group reaches it too, and only processes this run started.
 */
export interface Started {
  name: string;
  child: ChildProcess;
  logPath: string;
}

const started: Started[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
let stopping: Promise<void> | undefined;

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logPath: string },
): Started {
  const log = createWriteStream(options.logPath, { flags: "w" });
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const entry = { name, child, logPath: options.logPath };
  started.push(entry);
  return entry;
}

/** Runs a command to completion (output to its log); rejects on a non-zero exit. */
export async function runTask(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; logPath: string },
): Promise<void> {
  const entry = startProcess(name, command, args, options);
  const code = await new Promise<number | null>((resolve) => entry.child.once("exit", resolve));
  if (code !== 0) throw new Error(`${name} failed (exit code ${code}); see ${entry.logPath}`);
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopProcess(entry: Started, graceMs = 8000): Promise<void> {
  const { child } = entry;
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  signalGroup(child, "SIGTERM");
  const timer = setTimeout(() => signalGroup(child, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  // Ponder's esbuild service may outlive its parent for a moment.
  signalGroup(child, "SIGKILL");
}

/** Registers a cleanup (temp dirs, databases) run after every process is stopped. */
export function onCleanup(fn: () => Promise<void> | void) {
  cleanups.push(fn);
}

/** True once stopping has begun (after which errors from dying children are expected). */
export const isStopping = () => stopping !== undefined;

export function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await Promise.all(started.map((entry) => stopProcess(entry)));
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (error) {
        console.error(`cleanup failed: ${(error as Error).message}`);
      }
    }
  })();
  return stopping;
}

/** Ctrl-C, SIGTERM and a last-resort exit hook all lead to the same cleanup. */
export function installSignalHandlers() {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping everything the benchmark started...`);
      void stopAll().finally(() => process.exit(130));
    });
  }
  // Synchronous: if the process exits without stopAll (an uncaught throw), kill the groups anyway.
  process.once("exit", () => {
    for (const { child } of started) if (isRunning(child)) signalGroup(child, "SIGKILL");
  });
}

/** Rejects if `entry` exits before `promise` settles, naming its log. */
export function unlessExited<T>(entry: Started, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`${entry.name} exited (${signal ?? `code ${code}`}); see ${entry.logPath}`));
    if (!isRunning(entry.child)) return onExit(entry.child.exitCode, entry.child.signalCode);
    entry.child.once("exit", onExit);
    promise.then(resolve, reject).finally(() => entry.child.off("exit", onExit));
  });
}
