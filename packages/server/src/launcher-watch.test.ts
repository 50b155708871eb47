import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { launcherChain, readProcess, watchLauncher } from "./launcher-watch.js";

const linux = process.platform === "linux";

describe("launcher watch", () => {
  it.runIf(linux)("reads this process: its parent and its process group", () => {
    const self = readProcess(process.pid)!;
    expect(self.ppid).toBe(process.ppid);
    expect(self.zombie).toBe(false);
    for (const ancestor of launcherChain(self)) expect(ancestor.pgid).toBe(self.pgid);
  });

  it.runIf(linux)(
    "calls back once when a watched process exits, and never for a live one",
    async () => {
      // A process standing in for `sh -c …` between a package manager and the gateway.
      const stand = spawn("sleep", ["30"], { stdio: "ignore" });
      const info = readProcess(stand.pid!)!;
      const gone: number[] = [];
      const watch = watchLauncher({
        chain: [info],
        intervalMs: 20,
        onGone: (pid) => gone.push(pid),
      });
      expect(watch.watched).toEqual([stand.pid]);
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(gone).toEqual([]);
      stand.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(gone).toEqual([stand.pid]);
      watch.stop();
    },
  );

  it("watches nothing without a launcher chain (started directly)", () => {
    const watch = watchLauncher({ chain: [], onGone: () => expect.fail("nothing is watched") });
    expect(watch.watched).toEqual([]);
    watch.stop();
  });
});
