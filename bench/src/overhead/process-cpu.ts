import { readFileSync } from "node:fs";

// Linux's clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on every mainstream
// kernel configuration).
const ticksPerSecond = 100;

/**
 * CPU time (user + system, ms) a process has used so far, from `/proc/<pid>/stat`; NaN where
 * there is no procfs. Unlike wall-clock latency it does not change with the machine's load, so it
 * says what a path costs even on a busy machine (10 ms resolution: read it around many calls).
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return Number.NaN;
  }
  // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond;
}
