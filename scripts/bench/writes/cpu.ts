import { availableParallelism } from "node:os";
import { fixed, table } from "../indexer/table.ts";
import { cpuSeconds, machineBusySeconds } from "../proc.ts";

/**
 * CPU time per write, by process: where a round's work goes. The chain (Hardhat mines each
 * transaction as it arrives and answers every read) is shared by both paths, so its milliseconds
 * per write say what each path costs the node; Ponder's say what the API and its indexing cost.
 * Read from /proc (Linux); elsewhere every figure is missing and the table says so.
 */

/** CPU ms of a process (all its threads), or undefined when it cannot be read. */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return cpuSeconds(pid) * 1000;
  } catch {
    return undefined;
  }
}

/** Busy CPU ms of the whole machine (every process, PostgreSQL included), summed over cores. */
function machineBusyMs(): number | undefined {
  try {
    return machineBusySeconds() * 1000;
  } catch {
    return undefined;
  }
}

export type CpuSnapshot = Record<string, number | undefined>;

export function snapshotCpu(pids: Record<string, number | undefined>): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    "machine (all processes)": machineBusyMs(),
    ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)])),
    "bench (clients)": (self.user + self.system) / 1000,
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
