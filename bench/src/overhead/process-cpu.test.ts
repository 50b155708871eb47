import { describe, expect, it } from "vitest";
import { processCpuMs } from "./process-cpu.js";

describe("processCpuMs", () => {
  it.runIf(process.platform === "linux")(
    "reads a live process's CPU time, which grows with work",
    () => {
      const before = processCpuMs(process.pid);
      const until = performance.now() + 60;
      let spin = 0;
      while (performance.now() < until) spin += 1;
      expect(spin).toBeGreaterThan(0);
      const after = processCpuMs(process.pid);
      expect(before).toBeGreaterThan(0);
      expect(after).toBeGreaterThanOrEqual(before + 10);
    },
  );

  it("is NaN for a process that is not there", () => {
    expect(processCpuMs(undefined)).toBeNaN();
    expect(processCpuMs(2 ** 22 + 12_345)).toBeNaN();
  });
});
