import { type ChildProcess, spawn as spawnProcess, type SpawnOptions } from "node:child_process";
import { createWriteStream, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rpcRequest } from "../../lib/chain-rpc.ts";
import {
  type CrashHistory,
  DEFAULT_RESTART_POLICY,
  decideOnCrash,
  NO_CRASHES,
  type RestartPolicy,
} from "./restart-policy.ts";

/** A long-running process of `npm start`. */
export interface ServiceSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * False for a service whose state dies with its process (the in-memory chain): once
   * supervised, its exit is reported with `notRestarted` and the others keep running.
   */
  restart?: boolean;
  /** Why an exit of a service that is not restarted is not, and what the others do meanwhile. */
  notRestarted?: string;
  /** How to tell a restarted service serves again: a probe, or a line in its output. */
  ready?: (() => Promise<boolean>) | RegExp;
}

export type ServiceState = "running" | "starting" | "restarting" | "gave-up" | "down" | "stopped";

/** One service as `status.json` shows it. */
export interface ServiceStatus {
  state: ServiceState;
  pid: number | null;
  restarts: number;
  startedAt: string;
  lastExit: string | null;
}

export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SupervisorOptions {
  logDir: string;
  policy: RestartPolicy;
  /** After SIGTERM, a child still running this long is killed. */
  stopTimeoutMs: number;
  /** A restarted service not ready this long after it was started again is reported (once). */
  readyTimeoutMs: number;
  readyPollMs: number;
  spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess;
  clock: Clock;
  /** Ends `npm start`; never returns in production. */
  exit: (code: number) => never;
  print: (line: string) => void;
  warn: (line: string) => void;
  /** Stop everything on SIGINT and SIGTERM. */
  handleSignals: boolean;
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Service {
  spec: ServiceSpec;
  logPath: string;
  child: ChildProcess;
  state: ServiceState;
  startedAt: number;
  restarts: number;
  history: CrashHistory;
  lastExit: string | null;
  restartTimer?: unknown;
  /** The end of the current process's output, for a `ready` line split over chunks. */
  outputTail: string;
  readyLineSeen: boolean;
}

const OUTPUT_TAIL_CHARS = 4096;

/**
 * Starts the platform's processes for `npm start` and sends their output to `<logDir>/<name>.log`.
 * Until `supervise()` (the start-up), a service that exits fails the start: everything stops.
 * After it, a service that exits on its own is restarted under the restart policy, its log
 * appended to, while the others keep serving; one that keeps crashing is given up on. Only
 * SIGINT or SIGTERM (or `stop`) stops everything, and exits during that stop are not crashes.
 * `<logDir>/status.json` shows every service's state and current pid.
 */
export class Supervisor {
  private readonly services: Service[] = [];
  private readonly tasks: ChildProcess[] = [];
  private supervising = false;
  private stopping = false;
  private readonly options: SupervisorOptions;

  constructor(options: Partial<SupervisorOptions> = {}) {
    this.options = {
      logDir: join(process.cwd(), ".data", "logs"),
      policy: DEFAULT_RESTART_POLICY,
      stopTimeoutMs: 5000,
      readyTimeoutMs: 180_000,
      readyPollMs: 250,
      spawn: spawnProcess,
      clock: realClock,
      exit: (code) => process.exit(code),
      print: (line) => console.log(line),
      warn: (line) => console.error(line),
      handleSignals: true,
      ...options,
    };
    mkdirSync(this.options.logDir, { recursive: true });
    if (this.options.handleSignals)
      for (const signal of ["SIGINT", "SIGTERM"] as const)
        process.on(signal, () => {
          if (!this.stopping) this.say("print", `${signal}: stopping every service`);
          void this.stop(0);
        });
  }

  /** Starts a long-running service. */
  service(spec: ServiceSpec): void {
    const service = this.launch(spec, undefined);
    this.services.push(service);
    this.writeStatus();
  }

  /** From now on a service that exits is restarted (or reported), not a failed start. */
  supervise(): void {
    this.supervising = true;
  }

  /** Runs a command to completion with inherited output; rejects on failure. */
  async task(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
    const child = this.options.spawn(command, args, { env: { ...process.env, ...env }, stdio: "inherit" });
    this.tasks.push(child);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) throw new Error(`${name} failed with exit code ${code}`);
  }

  /** Every service's state, as written to `status.json`. */
  status(): Record<string, ServiceStatus> {
    return Object.fromEntries(
      this.services.map((s) => [
        s.spec.name,
        {
          state: s.state,
          pid: s.state === "running" || s.state === "starting" ? (s.child.pid ?? null) : null,
          restarts: s.restarts,
          startedAt: new Date(s.startedAt).toISOString(),
          lastExit: s.lastExit,
        },
      ]),
    );
  }

  /** Stops every child (SIGTERM, then SIGKILL after `stopTimeoutMs`) and exits with `exitCode`. */
  async stop(exitCode: number): Promise<never> {
    if (!this.stopping) {
      this.stopping = true;
      for (const service of this.services) {
        if (service.restartTimer !== undefined) this.options.clock.clearTimeout(service.restartTimer);
        service.restartTimer = undefined;
      }
      const running = [...this.services.map((s) => s.child), ...this.tasks].filter(isRunning);
      for (const child of running) child.kill("SIGTERM");
      await Promise.all(running.map((child) => this.exited(child)));
      for (const service of this.services) service.state = "stopped";
      this.writeStatus();
    }
    return this.options.exit(exitCode);
  }

  /** Resolves when `child` has exited, killing it if it outlives `stopTimeoutMs`. */
  private exited(child: ChildProcess): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!isRunning(child)) return resolve();
      const timer = this.options.clock.setTimeout(() => {
        child.kill("SIGKILL");
        resolve();
      }, this.options.stopTimeoutMs);
      child.once("exit", () => {
        this.options.clock.clearTimeout(timer);
        resolve();
      });
    });
  }

  private launch(spec: ServiceSpec, previous: Service | undefined): Service {
    const logPath = join(this.options.logDir, `${spec.name}.log`);
    // The first start begins a fresh log; a restart appends, so the crash stays readable.
    const log = createWriteStream(logPath, { flags: previous ? "a" : "w" });
    if (previous)
      log.write(
        `\n--- restarted at ${this.time()} after ${previous.lastExit} (restart ${previous.restarts + 1}) ---\n`,
      );
    const child = this.options.spawn(spec.command, spec.args, {
      env: { ...process.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const service: Service = previous ?? {
      spec,
      logPath,
      child,
      state: "running",
      startedAt: 0,
      restarts: 0,
      history: NO_CRASHES,
      lastExit: null,
      outputTail: "",
      readyLineSeen: false,
    };
    Object.assign(service, { child, startedAt: this.options.clock.now(), outputTail: "", readyLineSeen: false });
    if (previous) service.restarts += 1;
    service.state = previous && spec.ready ? "starting" : "running";
    for (const stream of [child.stdout, child.stderr]) {
      stream?.pipe(log, { end: false });
      stream?.on("data", (chunk: Buffer) => this.watchOutput(service, chunk));
    }
    // Both output streams end before "close": only then may the log be closed.
    child.once("close", () => log.end());
    child.once("exit", (code, signal) => this.onExit(service, child, code, signal));
    return service;
  }

  private watchOutput(service: Service, chunk: Buffer): void {
    const ready = service.spec.ready;
    if (!(ready instanceof RegExp) || service.readyLineSeen) return;
    service.outputTail = (service.outputTail + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
    if (ready.test(service.outputTail)) service.readyLineSeen = true;
  }

  private onExit(service: Service, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping || service.child !== child) return;
    const now = this.options.clock.now();
    const how = signal ?? `exit code ${code}`;
    service.lastExit = how;
    const name = service.spec.name;
    if (!this.supervising) {
      this.say("warn", `${name} exited (${how}); see ${service.logPath}`);
      void this.stop(1);
      return;
    }
    const uptime = formatDuration(now - service.startedAt);
    if (service.spec.restart === false) {
      service.state = "down";
      this.say(
        "warn",
        `${name} exited unexpectedly (${how}) after ${uptime}; not restarted: ${service.spec.notRestarted ?? ""}`,
      );
      this.writeStatus();
      return;
    }
    const { policy } = this.options;
    const decision = decideOnCrash(policy, service.history, service.startedAt, now);
    service.history = decision.history;
    if (!decision.restart) {
      service.state = "gave-up";
      this.say(
        "warn",
        `giving up on ${name} after ${decision.crashesInWindow} crashes within ${formatDuration(policy.windowMs)} (last: ${how}); ` +
          `the other services keep running; see ${service.logPath}`,
      );
      this.writeStatus();
      return;
    }
    service.state = "restarting";
    this.say(
      "warn",
      `${name} exited unexpectedly (${how}) after ${uptime}; restarting in ${formatDuration(decision.delayMs)} ` +
        `(crash ${decision.crashesInWindow} of ${policy.maxCrashes} allowed within ${formatDuration(policy.windowMs)}); see ${service.logPath}`,
    );
    this.writeStatus();
    service.restartTimer = this.options.clock.setTimeout(() => {
      service.restartTimer = undefined;
      if (this.stopping) return;
      this.launch(service.spec, service);
      this.say("print", `${name} restarted (pid ${service.child.pid})`);
      this.writeStatus();
      if (service.spec.ready) void this.awaitReady(service, service.child, now);
    }, decision.delayMs);
  }

  /** Polls a restarted service until it serves again, then says how long it was away. */
  private async awaitReady(service: Service, child: ChildProcess, exitedAt: number): Promise<void> {
    const { clock, readyPollMs, readyTimeoutMs } = this.options;
    const ready = service.spec.ready!;
    const deadline = clock.now() + readyTimeoutMs;
    const current = () => !this.stopping && service.child === child && isRunning(child);
    while (current()) {
      const answered = ready instanceof RegExp ? service.readyLineSeen : await ready().catch(() => false);
      if (!current()) return;
      if (answered) {
        service.state = "running";
        this.say(
          "print",
          `${service.spec.name} ready again (pid ${child.pid}), ${formatDuration(clock.now() - exitedAt)} after it exited`,
        );
        this.writeStatus();
        return;
      }
      if (clock.now() >= deadline) {
        this.say(
          "warn",
          `${service.spec.name} restarted (pid ${child.pid}) but not ready after ${formatDuration(readyTimeoutMs)}; see ${service.logPath}`,
        );
        return;
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, readyPollMs));
    }
  }

  private say(stream: "print" | "warn", line: string): void {
    this.options[stream](`${this.time()} ${line}`);
  }

  private time(): string {
    return new Date(this.options.clock.now()).toISOString();
  }

  /** Replaced whole (write, then rename), so a reader never sees half of it. */
  private writeStatus(): void {
    const path = join(this.options.logDir, "status.json");
    const body = { pid: process.pid, updatedAt: this.time(), services: this.status() };
    writeFileSync(`${path}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
    renameSync(`${path}.tmp`, path);
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** "450 ms", "3.2 s", "10 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/** True when a JSON-RPC endpoint answers eth_chainId. */
export async function rpcAnswers(url: string): Promise<boolean> {
  await rpcRequest(url, "eth_chainId", [], { timeoutMs: 2000 });
  return true;
}
