import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const packageDir = resolve(import.meta.dirname, "..");

describe("generated protobuf code", () => {
  it("is exactly what `pnpm generate` produces from proto/ (committed, reproducible)", () => {
    const out = mkdtempSync(join(tmpdir(), "wire-gen-"));
    try {
      const template = join(out, "buf.gen.yaml");
      writeFileSync(
        template,
        readFileSync(join(packageDir, "buf.gen.yaml"), "utf8").replace(
          "out: src/gen",
          `out: ${out}/gen`,
        ),
      );
      execFileSync(
        join(packageDir, "node_modules/.bin/buf"),
        ["generate", "proto", "--template", template],
        {
          cwd: packageDir,
          env: {
            ...process.env,
            PATH: `${join(packageDir, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
          },
        },
      );
      const committed = readdirSync(join(packageDir, "src/gen")).sort();
      expect(readdirSync(join(out, "gen")).sort()).toEqual(committed);
      for (const file of committed) {
        expect(readFileSync(join(out, "gen", file), "utf8")).toBe(
          readFileSync(join(packageDir, "src/gen", file), "utf8"),
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
