import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCheckpointSecret } from "./checkpoint-secret.js";
import { ConfigError } from "./config.js";

let dataDir: string;
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function freshDir(): string {
  dataDir = mkdtempSync(join(tmpdir(), "cursor-gateway-secret-"));
  return dataDir;
}

describe("loadCheckpointSecret", () => {
  it("generates a secret once, mode 0600, and reads the same one back", () => {
    const dir = freshDir();
    const secret = loadCheckpointSecret({ dataDir: dir });
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, "checkpoint-secret")).mode & 0o777).toBe(0o600);
    expect(loadCheckpointSecret({ dataDir: dir })).toBe(secret);
    // No temporary file is left behind.
    expect(readdirSync(dir)).toEqual(["checkpoint-secret"]);
  });

  it.each([
    ["empty", ""],
    ["blank", "  \n"],
    ["short", "too-short-secret\n"],
  ])(
    "refuses a %s secret file, naming the file and the fix, and leaves it as it was",
    (_, content) => {
      const dir = freshDir();
      const file = join(dir, "checkpoint-secret");
      writeFileSync(file, content, { mode: 0o600 });
      let thrown: unknown;
      try {
        loadCheckpointSecret({ dataDir: dir });
      } catch (error) {
        thrown = error;
      }
      expect(ConfigError.isInstance(thrown)).toBe(true);
      expect((thrown as ConfigError).message).toContain(file);
      expect((thrown as ConfigError).message).toContain("at least 32");
      expect(readFileSync(file, "utf8")).toBe(content);
    },
  );

  it("uses the configured secret and touches no file", () => {
    const dir = freshDir();
    expect(loadCheckpointSecret({ dataDir: dir, configured: "c".repeat(40) })).toBe("c".repeat(40));
    expect(readdirSync(dir)).toEqual([]);
  });
});
