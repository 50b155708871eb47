import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What the watch needs to know about one process. */
interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id. */
  readonly pgid: number;
  /** Linux: start time in clock ticks (tells a reused pid apart); elsewhere undefined. */
  readonly startTime?: string;
  /** Exited but not yet reaped by its parent. */
  readonly zombie: boolean;
}

/**
 * Reads one process: `/proc/<pid>/stat` on Linux, `ps` elsewhere (macOS, BSD); undefined when it
 * is gone or cannot be read (Windows).
 */
export function readProcess(pid: number): ProcessInfo | undefined {
  if (process.platform === "linux") {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return undefined;
    }
    // The command name is in parentheses and may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      startTime: fields[19],
      zombie: fields[0] === "Z",
    };
  }
  if (process.platform === "win32") return undefined;
  try {
    const [ppid, pgid, state] = execFileSync("ps", ["-o", "ppid=,pgid=,stat=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trim()
      .split(/\s+/);
    return { pid, ppid: Number(ppid), pgid: Number(pgid), zombie: (state ?? "").startsWith("Z") };
  } catch {
    return undefined;
  }
}

/**
 * The processes above this one that belong to its own process group, nearest first: the
 * package manager and shells between a command the user started (`npx pnpm start`, which job
 * control makes a process group of its own) and the gateway. An ancestor in another group (the
 * user's shell, a supervisor) is not one of them, and neither is pid 1.
 */
export function launcherChain(
  self: ProcessInfo | undefined = readProcess(process.pid),
): ProcessInfo[] {
  const chain: ProcessInfo[] = [];
  if (self === undefined) return chain;
  let current = self;
  for (let depth = 0; depth < 32 && current.ppid > 1; depth += 1) {
    const parent = readProcess(current.ppid);
    if (parent === undefined || parent.pgid !== self.pgid) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

const isGone = (watched: ProcessInfo): boolean => {
  const now = readProcess(watched.pid);
  return (
    now === undefined ||
    now.zombie ||
    (watched.startTime !== undefined && now.startTime !== watched.startTime)
  );
};

/**
 * Calls `onGone` once when a process of the launcher chain exits. Package managers and the
 * shells they start do not pass a SIGTERM on to the gateway (a `sh -c` between them exits and
 * leaves its child running), so `kill <pid of npx>` or a supervisor stopping `pnpm start` would
 * otherwise leave the gateway holding its port. Started directly (`node … serve`, or as a
 * process group leader), the chain is empty and nothing is watched: signals reach the gateway.
 */
export function watchLauncher({
  onGone,
  intervalMs = 500,
  chain = launcherChain(),
}: {
  onGone: (pid: number) => void;
  intervalMs?: number;
  chain?: readonly ProcessInfo[];
}): { readonly watched: readonly number[]; stop(): void } {
  const watched = chain.map((info) => info.pid);
  if (chain.length === 0) return { watched, stop: () => undefined };
  const timer = setInterval(() => {
    const gone = chain.find(isGone);
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone.pid);
  }, intervalMs);
  timer.unref();
  return { watched, stop: () => clearInterval(timer) };
}
