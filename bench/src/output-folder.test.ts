import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultOutDir } from "./output-folder.js";

const bench = resolve(import.meta.dirname, "..");

describe("bench output folder", () => {
  it("keeps a quick run away from the committed full run", () => {
    expect(defaultOutDir("full")).toBe(join(bench, "results"));
    expect(defaultOutDir("quick")).toBe(join(bench, "results", "quick"));
  });

  it("does not commit a quick run's files", () => {
    const ignored = execFileSync(
      "git",
      ["check-ignore", "--no-index", join(defaultOutDir("quick"), "latest.md")],
      { cwd: bench, encoding: "utf8" },
    );
    expect(ignored.trim()).toBe(join(defaultOutDir("quick"), "latest.md"));
  });
});
