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
import { execFileSync } from "node:child_process";
import {
  checkLayerTable,
  checkLayers,
  checkManifests,
  readWorkspacePackages,
} from "./check-layers.mjs";
import { layers } from "./layers.mjs";

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

  it("fails when the gateway depends on @cursor/testkit at run time", () => {
    const packages = readWorkspacePackages(root).map((p) =>
      p.manifest.name === "@cursor/server"
        ? {
            ...p,
            manifest: {
              ...p.manifest,
              dependencies: { ...p.manifest.dependencies, "@cursor/testkit": "workspace:*" },
            },
          }
        : p,
    );
    expect(checkManifests(packages)).toContainEqual(
      "test-tooling: @cursor/server dependencies declares @cursor/testkit; test tooling belongs in devDependencies (installing @cursor/server must not install it)",
    );
  });

  it("fails when a runtime package declares vitest or fast-check outside devDependencies", () => {
    const packages = readWorkspacePackages(root).map((p) =>
      p.manifest.name === "@cursor/fake-provider"
        ? {
            ...p,
            manifest: {
              ...p.manifest,
              dependencies: { ...p.manifest.dependencies, "fast-check": "4.11.0" },
              peerDependencies: { vitest: ">=4" },
            },
          }
        : p,
    );
    const violations = checkManifests(packages);
    expect(violations).toContainEqual(
      "test-tooling: @cursor/fake-provider dependencies declares fast-check; test tooling belongs in devDependencies (installing @cursor/fake-provider must not install it)",
    );
    expect(violations).toContainEqual(
      "test-tooling: @cursor/fake-provider peerDependencies declares vitest; test tooling belongs in devDependencies (installing @cursor/fake-provider must not install it)",
    );
  });

  it("fails when the layer table lets a runtime layer use a test-tooling layer", () => {
    expect(checkLayerTable()).toEqual([]);
    const table = {
      ...layers,
      "@cursor/server": {
        ...layers["@cursor/server"],
        runtime: [...layers["@cursor/server"].runtime, "@cursor/testkit"],
      },
    };
    expect(checkLayerTable(table)).toEqual([
      "layer-table: @cursor/server lists @cursor/testkit (test tooling) as a runtime layer; list it under dev",
    ]);
  });

  it("installs no test tooling with the gateway: its production dependency tree", () => {
    // What `npm install @cursor/server` would bring, as pnpm resolved it for the workspace.
    const [tree] = JSON.parse(
      execFileSync(
        "pnpm",
        ["--filter", "@cursor/server", "list", "--prod", "--depth", "Infinity", "--json"],
        { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      ),
    );
    const names = new Set();
    const visit = (dependencies) => {
      for (const [name, node] of Object.entries(dependencies ?? {})) {
        if (names.has(name)) continue;
        names.add(name);
        visit(node.dependencies);
      }
    };
    visit(tree.dependencies);
    expect(names.has("@cursor/fake-provider")).toBe(true);
    expect(names.has("fastify")).toBe(true);
    const tooling = [...names].filter(
      (name) =>
        name === "vitest" ||
        name.startsWith("@vitest/") ||
        name === "fast-check" ||
        name === "@cursor/testkit",
    );
    expect(tooling).toEqual([]);
  });
});
