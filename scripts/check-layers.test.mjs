import {
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
  mkdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLayers, readWorkspacePackages } from "./check-layers.mjs";

const root = resolve(import.meta.dirname, "..");
let scratch;

// A copy of the real workspace (manifests and sources only) to plant violations in.
function copyWorkspace() {
  scratch = mkdtempSync(join(tmpdir(), "layers-fixture-"));
  for (const { dir } of readWorkspacePackages(root)) {
    const from = join(root, "packages", dir);
    const to = join(scratch, "packages", dir);
    mkdirSync(to, { recursive: true });
    cpSync(join(from, "package.json"), join(to, "package.json"));
    cpSync(join(from, "src"), join(to, "src"), {
      recursive: true,
      filter: (source) => !source.includes("__fixtures__"),
    });
  }
  return scratch;
}

afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("check:layers", () => {
  it("passes on the real tree", async () => {
    expect(await checkLayers(root)).toEqual([]);
  });

  it("fails when a provider package imports @cursor/request, naming the rule", async () => {
    const tree = copyWorkspace();
    appendFileSync(
      join(tree, "packages/provider-openai-chat/src/index.ts"),
      '\nimport * as forbidden from "@cursor/request";\nexport const leak = forbidden;\n',
    );
    const violations = await checkLayers(tree);
    expect(violations).toContainEqual(
      "layer:@cursor/provider-openai-chat: packages/provider-openai-chat/src/index.ts → packages/request/src/index.ts",
    );
  });

  it("fails when a provider package declares @cursor/request in package.json", async () => {
    const tree = copyWorkspace();
    const manifestPath = join(tree, "packages/provider-anthropic/package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.dependencies["@cursor/request"] = "workspace:*";
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const violations = await checkLayers(tree);
    expect(
      violations.some((v) =>
        v.startsWith(
          "layer-manifest: @cursor/provider-anthropic dependencies declares @cursor/request",
        ),
      ),
    ).toBe(true);
  });

  it("fails when @cursor/run depends on anything internal", async () => {
    const tree = copyWorkspace();
    appendFileSync(
      join(tree, "packages/run/src/index.ts"),
      '\nimport * as up from "@cursor/checkpoint";\nexport const upward = up;\n',
    );
    const violations = await checkLayers(tree);
    expect(violations.some((v) => v.startsWith("layer:@cursor/run:"))).toBe(true);
  });

  it("fails when a layer below @cursor/wire imports it, or the wire imports a provider", async () => {
    const tree = copyWorkspace();
    appendFileSync(
      join(tree, "packages/projection/src/index.ts"),
      '\nimport * as wire from "@cursor/wire";\nexport const upward = wire;\n',
    );
    appendFileSync(
      join(tree, "packages/wire/src/index.ts"),
      '\nimport * as provider from "@cursor/provider-anthropic";\nexport const sideways = provider;\n',
    );
    const violations = await checkLayers(tree);
    expect(violations).toContainEqual(
      "layer:@cursor/projection: packages/projection/src/index.ts → packages/wire/src/index.ts",
    );
    expect(violations).toContainEqual(
      "layer:@cursor/wire: packages/wire/src/index.ts → packages/provider-anthropic/src/index.ts",
    );
  });

  it("fails on an import of another package's src/ by path", async () => {
    const tree = copyWorkspace();
    appendFileSync(
      join(tree, "packages/request/src/index.ts"),
      '\nexport * as byPath from "../../run/src/index.ts";\n',
    );
    const violations = await checkLayers(tree);
    expect(violations).toContainEqual(
      "no-path-import-across-packages: packages/request/src/index.ts → packages/run/src/index.ts",
    );
  });

  it("fails on a deep import past the exports map", async () => {
    const tree = copyWorkspace();
    appendFileSync(
      join(tree, "packages/checkpoint/src/index.ts"),
      '\nexport * as deep from "@cursor/run/dist/index.js";\n',
    );
    const violations = await checkLayers(tree);
    expect(
      violations.some((v) =>
        v.startsWith(
          "not-to-unresolvable: packages/checkpoint/src/index.ts → @cursor/run/dist/index.js",
        ),
      ),
    ).toBe(true);
  });

  it("fails on an import cycle", async () => {
    const tree = copyWorkspace();
    writeFileSync(
      join(tree, "packages/checkpoint/src/cycle-a.ts"),
      'export * from "./cycle-b.js";\nexport const a = 1;\n',
    );
    writeFileSync(
      join(tree, "packages/checkpoint/src/cycle-b.ts"),
      'export * from "./cycle-a.js";\nexport const b = 2;\n',
    );
    appendFileSync(
      join(tree, "packages/checkpoint/src/index.ts"),
      '\nexport * from "./cycle-a.js";\n',
    );
    const violations = await checkLayers(tree);
    expect(violations.some((v) => v.startsWith("no-circular:"))).toBe(true);
  });

  it("fails on a workspace package that has no layer", async () => {
    const tree = copyWorkspace();
    mkdirSync(join(tree, "packages/rogue/src"), { recursive: true });
    writeFileSync(
      join(tree, "packages/rogue/package.json"),
      JSON.stringify({ name: "@cursor/rogue" }),
    );
    writeFileSync(join(tree, "packages/rogue/src/index.ts"), "export const rogue = 1;\n");
    const violations = await checkLayers(tree);
    expect(violations.some((v) => v.startsWith("unknown-package: @cursor/rogue"))).toBe(true);
  });
});
