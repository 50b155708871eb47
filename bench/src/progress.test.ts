import { describe, expect, it } from "vitest";
import { Progress } from "./progress.js";

describe("Progress", () => {
  it("prints a line per quarter when the output is not a terminal", () => {
    const lines: string[] = [];
    const progress = new Progress({ out: { write: (text) => lines.push(text) }, steps: 2 });
    progress.begin("prefix efficiency");
    for (let done = 0; done <= 8; done += 1) progress.update(done, 8);
    progress.done("98.6%");
    expect(lines[0]).toBe("[1/2] prefix efficiency\n");
    expect(lines.filter((line) => line.startsWith("  prefix efficiency:"))).toHaveLength(5);
    expect(lines.at(-1)).toMatch(/^\[1\/2\] prefix efficiency: 98\.6% \(\d+ s\)\n$/);
  });

  it("rewrites one line on a terminal", () => {
    const writes: string[] = [];
    const progress = new Progress({
      out: { isTTY: true, write: (text) => writes.push(text) },
      steps: 1,
    });
    progress.begin("growth");
    progress.update(1, 2);
    progress.done("ok");
    expect(writes.slice(0, 3).every((text) => text.startsWith("\r\x1b[2K"))).toBe(true);
    expect(writes.at(-1)).toBe("\n");
  });
});
