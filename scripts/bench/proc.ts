import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

// What the benchmarks read from /proc (Linux): memory and CPU time of a process, and of the machine.

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Resident memory of a process, bytes (/proc/<pid>/status VmRSS). */
export function rssBytes(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kib ?? Number.NaN) * 1024;
}

/** CPU seconds a process has used, user and system (/proc/<pid>/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  // The command name (field 2) may hold spaces; the fields counted from after its ")".
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds the whole machine has spent busy, every core together (/proc/stat). */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n", 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / TICKS_PER_SECOND;
}
