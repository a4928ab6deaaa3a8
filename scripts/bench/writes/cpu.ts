import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fixed, table } from "../indexer/table.ts";

/**
 * CPU time per write, by process: where a round's work goes. The chain (Hardhat mines each
 * transaction as it arrives and answers every read) is shared by both paths, so its milliseconds
 * per write say what each path costs the node; Ponder's say what the API and its indexing cost.
 * Read from /proc (Linux); elsewhere every figure is missing and the table says so.
 */

const TICKS_PER_SECOND = 100;

/** User plus system CPU of a process (all its threads), in ms; undefined when it cannot be read. */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export type CpuSnapshot = Record<string, number | undefined>;

/** Busy CPU of the whole machine (every process, PostgreSQL included), in ms summed over cores. */
function machineBusyMs(): number | undefined {
  try {
    const [cpu] = readFileSync("/proc/stat", "utf8").split("\n");
    const ticks = cpu!.split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
    const busy = ticks.reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!;
    return (busy * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export function snapshotCpu(pids: Record<string, number | undefined>): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    "machine (all processes)": machineBusyMs(),
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)])),
    "bench (exchange, clients)": (self.user + self.system) / 1000,
  };
}

/** Accumulates CPU ms per process over the rounds of one path. */
export function addCpu(into: Map<string, number>, before: CpuSnapshot, after: CpuSnapshot): void {
  for (const [name, start] of Object.entries(before)) {
    const end = after[name];
    if (start === undefined || end === undefined) continue;
    into.set(name, (into.get(name) ?? 0) + end - start);
  }
}

export interface PathCpu {
  /** From a round's first request to its last answer. */
  readonly cpu: Map<string, number>;
  /** From a round's first request until all its writes show in the read API (indexing included). */
  readonly untilVisible: Map<string, number>;
  readonly writes: number;
  readonly wallMs: number;
}

export function cpuTable(kind: string, api: PathCpu, direct: PathCpu): string {
  const names = [...new Set([...api.cpu.keys(), ...direct.cpu.keys()])];
  if (names.length === 0) return `CPU per ${kind}: not measured (no /proc)`;
  const per = (p: PathCpu, name: string, of = p.cpu) => (of.has(name) ? fixed(of.get(name)! / p.writes, 2) : "-");
  const machine = "machine (all processes)";
  const cores = (p: PathCpu) => (p.cpu.has(machine) ? fixed(p.cpu.get(machine)! / p.wallMs, 2) : "-");
  return table(
    [`CPU ms per ${kind}`, "api, in round", "direct, in round", "api, until visible", "direct, until visible"],
    [
      ...names.map((name) => [
        name,
        per(api, name),
        per(direct, name),
        per(api, name, api.untilVisible),
        per(direct, name, direct.untilVisible),
      ]),
      [`cores busy in the rounds (of ${availableParallelism()})`, cores(api), cores(direct), "", ""],
    ],
  );
}
