import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, it } from "vitest";
import { type Clock, type ServiceStatus, Supervisor, type SupervisorOptions } from "./supervisor.ts";

/** A child process that exits when told to, or when killed if it obeys that signal. */
class FakeChild extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly signals: NodeJS.Signals[] = [];
  readonly command: string;
  readonly pid: number;
  /** The signals it exits on (a hung process ignores SIGTERM). */
  private readonly obeys: NodeJS.Signals[];
  constructor(command: string, pid: number, obeys: NodeJS.Signals[]) {
    super();
    this.command = command;
    this.pid = pid;
    this.obeys = obeys;
  }
  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    this.signals.push(signal);
    if (this.obeys.includes(signal)) this.die(null, signal);
    return true;
  }
  die(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.exitCode = code;
    this.signalCode = signal;
    this.stdout.end();
    this.stderr.end();
    queueMicrotask(() => {
      this.emit("exit", code, signal);
      this.emit("close", code, signal);
    });
  }
}

/** Timers that run only when the test advances time. */
class FakeClock implements Clock {
  private time = Date.UTC(2026, 0, 1);
  private timers: { at: number; run: () => void; id: number }[] = [];
  private nextId = 1;
  now = () => this.time;
  setTimeout = (run: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, run, id });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== id);
  };
  /** Moves time forward by `ms`, running each timer due on the way, with its promises settled. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.run();
    }
    this.time = end;
    await settle();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

let logDir = "";
let clock: FakeClock;
let children: FakeChild[];
let lines: string[];
let exits: number[];
let obeys: NodeJS.Signals[];

beforeEach(async () => {
  logDir = await mkdtemp(join(tmpdir(), "supervisor-"));
  clock = new FakeClock();
  children = [];
  lines = [];
  exits = [];
  obeys = ["SIGTERM", "SIGKILL"];
});
// Services open their log files as they start, so one may appear while the directory is removed.
afterEach(() => rm(logDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

function supervisor(options: Partial<SupervisorOptions> = {}): Supervisor {
  return new Supervisor({
    logDir,
    clock,
    handleSignals: false,
    spawn: (command) => {
      const child = new FakeChild(command, 1000 + children.length, obeys);
      children.push(child);
      return child as unknown as ChildProcess;
    },
    exit: ((code: number) => {
      exits.push(code);
    }) as (code: number) => never,
    print: (line) => lines.push(line),
    warn: (line) => lines.push(line),
    ...options,
  });
}

/** The newest process started for `command`. */
const latest = (command: string) => children.filter((c) => c.command === command).at(-1)!;

async function statusFile(): Promise<Record<string, ServiceStatus>> {
  return (
    JSON.parse(await readFile(join(logDir, "status.json"), "utf8")) as { services: Record<string, ServiceStatus> }
  ).services;
}

/** The platform of `npm start`, started and supervised. */
function platform(options: Partial<SupervisorOptions> = {}) {
  const s = supervisor(options);
  let exchangeReady = false;
  s.service({ name: "chain", command: "chain", args: [], restart: false, notRestarted: "its state was in memory" });
  s.service({ name: "exchange", command: "exchange", args: [], ready: async () => exchangeReady });
  s.service({ name: "agents", command: "agents", args: [], ready: /agents: running/ });
  s.service({ name: "bot", command: "bot", args: [] });
  s.supervise();
  return { s, setExchangeReady: (ready: boolean) => (exchangeReady = ready) };
}

describe("Supervisor", () => {
  it("an exchange killed by SIGKILL (as by the out-of-memory killer) is restarted, and nothing else stops", async () => {
    const { setExchangeReady } = platform();
    const first = latest("exchange");
    await clock.advance(125_000);
    first.die(null, "SIGKILL");
    await clock.advance(0);
    assert.equal(exits.length, 0, "npm start keeps running");
    for (const name of ["chain", "agents", "bot"]) assert.deepEqual(latest(name).signals, [], `${name} is left alone`);
    assert.match(
      lines.at(-1)!,
      /exchange exited unexpectedly \(SIGKILL\) after 125 s; restarting in 500 ms \(crash 1 of 5/,
    );
    assert.equal((await statusFile()).exchange!.state, "restarting");

    await clock.advance(499);
    assert.equal(latest("exchange"), first, "not before its delay");
    await clock.advance(1);
    const second = latest("exchange");
    assert.notEqual(second, first);
    assert.match(lines.at(-1)!, /exchange restarted \(pid 1004\)/);
    assert.deepEqual([(await statusFile()).exchange!.state, (await statusFile()).exchange!.pid], ["starting", 1004]);

    await clock.advance(3000);
    setExchangeReady(true);
    await clock.advance(250);
    assert.match(lines.at(-1)!, /exchange ready again \(pid 1004\), 3\.8 s after it exited/);
    const status = await statusFile();
    assert.deepEqual(status.exchange, {
      state: "running",
      pid: 1004,
      restarts: 1,
      startedAt: new Date(clock.now() - 3250).toISOString(),
      lastExit: "SIGKILL",
    });
    assert.deepEqual(
      Object.values(status).map((s) => s.state),
      ["running", "running", "running", "running"],
    );
    const log = await readFile(join(logDir, "exchange.log"), "utf8");
    assert.match(log, /--- restarted at .* after SIGKILL \(restart 1\) ---/);
  });

  it("a service restarted after a crash is ready when its output says so", async () => {
    platform();
    latest("agents").die(1);
    await clock.advance(500);
    latest("agents").stdout.write("2026-01-01 agents: resuming 2 intents\n");
    await clock.advance(1000);
    assert.ok(!lines.some((l) => l.includes("agents ready again")));
    latest("agents").stdout.write("agents: run");
    latest("agents").stdout.write("ning worker (0x1)\n");
    await clock.advance(250);
    assert.match(lines.at(-1)!, /agents ready again \(pid 1004\), 1\.8 s after it exited/);
  });

  it("a service that keeps crashing is given up on after 5 crashes, with backoff between, and the others keep running", async () => {
    platform();
    const delays: string[] = [];
    for (let crash = 1; crash <= 5; crash++) {
      latest("bot").die(1);
      await clock.advance(0);
      delays.push(lines.at(-1)!.match(/restarting in (\S+ \S+)|giving up.*/)![0]);
      await clock.advance(20_000);
    }
    assert.deepEqual(delays.slice(0, 4), [
      "restarting in 500 ms",
      "restarting in 1.0 s",
      "restarting in 2.0 s",
      "restarting in 4.0 s",
    ]);
    assert.match(
      delays[4]!,
      /^giving up on bot after 5 crashes within 10 min \(last: exit code 1\); the other services keep running/,
    );
    assert.equal(children.filter((c) => c.command === "bot").length, 5, "never started a sixth time");
    assert.equal(exits.length, 0);
    const status = await statusFile();
    assert.deepEqual([status.bot!.state, status.bot!.pid, status.bot!.restarts], ["gave-up", null, 4]);
    assert.equal(status.exchange!.state, "running");
  });

  it("a dead chain is reported and not restarted, since its state was in its memory", async () => {
    platform();
    latest("chain").die(null, "SIGKILL");
    await clock.advance(60_000);
    assert.equal(children.filter((c) => c.command === "chain").length, 1);
    assert.match(
      lines.at(-1)!,
      /chain exited unexpectedly \(SIGKILL\) after 0 ms; not restarted: its state was in memory/,
    );
    assert.equal((await statusFile()).chain!.state, "down");
    assert.equal(exits.length, 0);
  });

  it("before the platform runs, a service that exits fails the start: everything stops with exit code 1", async () => {
    const s = supervisor();
    s.service({ name: "chain", command: "chain", args: [], restart: false });
    s.service({ name: "exchange", command: "exchange", args: [] });
    latest("exchange").die(1);
    await clock.advance(0);
    assert.match(lines[0]!, /exchange exited \(exit code 1\); see .*exchange\.log/);
    assert.deepEqual(latest("chain").signals, ["SIGTERM"]);
    assert.deepEqual(exits, [1]);
    assert.equal(children.length, 2, "nothing restarted");
  });

  it("stop: every child gets SIGTERM, one that ignores it SIGKILL after 5 s; their exits are not crashes, and a pending restart is cancelled", async () => {
    const { s } = platform();
    latest("bot").die(1); // its restart is pending
    await clock.advance(0);
    obeys = ["SIGKILL"];
    s.service({ name: "hung", command: "hung", args: [] });
    const stopped = s.stop(0);
    await clock.advance(4999);
    assert.deepEqual(exits, [], "waits for the hung child");
    await clock.advance(1);
    await stopped;
    assert.deepEqual(exits, [0]);
    assert.deepEqual(latest("hung").signals, ["SIGTERM", "SIGKILL"]);
    for (const name of ["chain", "exchange", "agents"]) assert.deepEqual(latest(name).signals, ["SIGTERM"]);
    await clock.advance(60_000);
    assert.equal(children.filter((c) => c.command === "bot").length, 1, "the pending restart never ran");
    assert.ok(!lines.some((l) => /exchange exited|restarting in .*exchange/.test(l)), lines.join("\n"));
    const status = await statusFile();
    assert.ok(Object.values(status).every((service) => service.state === "stopped" && service.pid === null));
  });

  it("status.json names every service's pid", async () => {
    platform();
    const status = await statusFile();
    assert.deepEqual(
      Object.fromEntries(Object.entries(status).map(([name, s]) => [name, [s.state, s.pid, s.restarts]])),
      {
        chain: ["running", 1000, 0],
        exchange: ["running", 1001, 0],
        agents: ["running", 1002, 0],
        bot: ["running", 1003, 0],
      },
    );
  });
});
