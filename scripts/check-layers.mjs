#!/usr/bin/env node
// Enforces the one-way layering of docs/architecture.md:
//  1. every workspace package.json declares only workspace dependencies from its allowed set;
//     and only a test-tooling layer (testkit) carries test tooling in its runtime dependencies;
//  2. dependency-cruiser proves the imports agree: no import outside the allowed set, no import of
//     another package by path (its src/ or dist/), nothing unresolvable, no cycles.
// Usage: node scripts/check-layers.mjs [--root <dir>]
import { readdirSync, readFileSync, existsSync, mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise } from "dependency-cruiser";
import { layers, leaves, testToolingPackages } from "./layers.mjs";

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const dirOf = (name) => layers[name]?.dir ?? name.replace(/^@cursor\//, "");

export function readWorkspacePackages(root) {
  const packagesDir = join(root, "packages");
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, "package.json")),
    )
    .map((entry) => ({
      dir: entry.name,
      manifest: JSON.parse(readFileSync(join(packagesDir, entry.name, "package.json"), "utf8")),
    }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}

const isTestTooling = (dependency) =>
  testToolingPackages.some((pattern) =>
    pattern.endsWith("/*") ? dependency.startsWith(pattern.slice(0, -1)) : dependency === pattern,
  );

/**
 * The table itself: a runtime layer may not list a test-tooling layer among what it may use at
 * run time (a test-tooling layer may, e.g. testkit uses the fake provider).
 */
export function checkLayerTable(table = layers) {
  const violations = [];
  for (const [name, layer] of Object.entries(table)) {
    if (layer.testTooling) continue;
    for (const dependency of layer.runtime) {
      if (table[dependency]?.testTooling) {
        violations.push(
          `layer-table: ${name} lists ${dependency} (test tooling) as a runtime layer; list it under dev`,
        );
      }
    }
  }
  return violations;
}

/** Rule 1: declared dependencies. Returns a list of violation strings. */
export function checkManifests(packages) {
  const violations = [];
  const names = new Set(packages.map((p) => p.manifest.name));
  for (const { dir, manifest } of packages) {
    const name = manifest.name;
    const layer = layers[name];
    const isLeaf = leaves.includes(name);
    if (!layer && !isLeaf) {
      violations.push(
        `unknown-package: ${name} (packages/${dir}) is not in scripts/layers.mjs; give it a layer before adding it`,
      );
      continue;
    }
    if (layer && layer.dir !== dir) {
      violations.push(
        `package-folder: ${name} must live in packages/${layer.dir}, found packages/${dir}`,
      );
    }
    const runtimeAllowed = new Set(isLeaf ? Object.keys(layers) : layer.runtime);
    const devAllowed = new Set([...runtimeAllowed, ...(isLeaf ? [] : layer.dev)]);
    const sections = [
      ["dependencies", runtimeAllowed],
      ["peerDependencies", runtimeAllowed],
      ["optionalDependencies", runtimeAllowed],
      ["devDependencies", devAllowed],
    ];
    for (const [section, allowed] of sections) {
      for (const dependency of Object.keys(manifest[section] ?? {}).sort()) {
        if (section !== "devDependencies" && !isLeaf && !layer.testTooling) {
          const tooling =
            isTestTooling(dependency) || layers[dependency]?.testTooling === true
              ? dependency
              : undefined;
          if (tooling !== undefined) {
            violations.push(
              `test-tooling: ${name} ${section} declares ${tooling}; test tooling belongs in devDependencies (installing ${name} must not install it)`,
            );
            continue;
          }
        }
        const internal = names.has(dependency) || dependency.startsWith("@cursor/");
        if (!internal) continue;
        if (leaves.includes(dependency)) {
          violations.push(
            `layer-manifest: ${name} ${section} declares ${dependency}, a leaf nothing may depend on`,
          );
        } else if (!allowed.has(dependency)) {
          violations.push(
            `layer-manifest: ${name} ${section} declares ${dependency}; allowed: ${[...allowed].join(", ") || "no workspace package"}`,
          );
        }
      }
    }
  }
  return violations;
}

function layerRules(packages) {
  const rules = [];
  const allDirs = packages.map((p) => p.dir);
  for (const { dir, manifest } of packages) {
    const layer = layers[manifest.name];
    if (!layer) continue;
    const runtimeDirs = [dir, ...layer.runtime.map(dirOf)];
    const testDirs = [...runtimeDirs, ...layer.dev.map(dirOf)];
    const forbidden = (allowedDirs) => allDirs.filter((d) => !allowedDirs.includes(d));
    const runtimeForbidden = forbidden(runtimeDirs);
    const testForbidden = forbidden(testDirs);
    const testFile = "(\\.test\\.ts$|/__fixtures__/|/test/|/e2e/)";
    if (runtimeForbidden.length > 0) {
      rules.push({
        name: `layer:${manifest.name}`,
        comment: `${manifest.name} may import only ${layer.runtime.join(", ") || "no workspace package"}`,
        severity: "error",
        from: { path: `^packages/${escape(dir)}/src/`, pathNot: testFile },
        to: { path: `^packages/(${runtimeForbidden.map(escape).join("|")})/` },
      });
    }
    if (testForbidden.length > 0) {
      rules.push({
        name: `layer-test:${manifest.name}`,
        comment: `tests of ${manifest.name} may import only ${[...layer.runtime, ...layer.dev].join(", ") || "no workspace package"}`,
        severity: "error",
        from: { path: `^packages/${escape(dir)}/src/.*${testFile}` },
        to: { path: `^packages/(${testForbidden.map(escape).join("|")})/` },
      });
    }
  }
  return rules;
}

/**
 * Each public entry of a package's exports map, as [specifier, [source file]]: `./dist/x.js`
 * is built from `src/x.ts`. Falls back to `src/index.ts` for a package without an exports map.
 */
export function entryPoints(root, dir, manifest) {
  const exportsMap = manifest.exports ?? { ".": "./dist/index.js" };
  const entries = [];
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (subpath === "./package.json") continue;
    const file = typeof target === "string" ? target : (target.import ?? target.default);
    if (typeof file !== "string") continue;
    const source = file.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts");
    if (!existsSync(join(root, "packages", dir, source))) continue;
    const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    entries.push([specifier, [`packages/${dir}/${source}`]]);
  }
  if (entries.length === 0) entries.push([manifest.name, [`packages/${dir}/src/index.ts`]]);
  return entries;
}

function sharedRules(packages, root) {
  const publicEntries = packages
    .flatMap(({ dir, manifest }) => entryPoints(root, dir, manifest))
    .map(([, [file]]) => `^${escape(file)}$`);
  return [
    {
      name: "no-deep-import",
      comment:
        "only a package's public entry points (its exports map) may be imported from another package",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { path: "^packages/", pathNot: ["^packages/$1/", ...publicEntries] },
    },
    ...fixedRules,
  ];
}

const fixedRules = [
  {
    name: "no-path-import-across-packages",
    comment:
      "import another workspace package by its name (its exports map), never its src/ or dist/ by path",
    severity: "error",
    from: { path: "^packages/([^/]+)/" },
    to: {
      path: "^packages/",
      pathNot: "^packages/$1/",
      dependencyTypesNot: ["aliased-tsconfig-paths"],
    },
  },
  {
    name: "no-circular",
    comment: "import cycles make layering meaningless",
    severity: "error",
    from: {},
    to: { circular: true },
  },
  {
    name: "not-to-unresolvable",
    comment: "every import must resolve (deep imports past an exports map do not)",
    severity: "error",
    from: {},
    to: { couldNotResolve: true },
  },
];

/** Rule 2: real imports, through dependency-cruiser. */
export async function checkImports(root, packages) {
  const paths = Object.fromEntries(
    packages.flatMap(({ dir, manifest }) => entryPoints(root, dir, manifest)),
  );
  // Workspace packages resolve to their src/index.ts (no build needed); the resolver plugin reads
  // the aliases from a tsconfig file, so write one outside the tree.
  const tsConfigDir = mkdtempSync(join(tmpdir(), "check-layers-"));
  const tsConfigFile = join(tsConfigDir, "tsconfig.json");
  const compilerOptions = { baseUrl: root, paths };
  writeFileSync(tsConfigFile, JSON.stringify({ compilerOptions }));
  try {
    const result = await cruise(
      packages.map((p) => `packages/${p.dir}/src`),
      {
        baseDir: root,
        validate: true,
        ruleSet: { forbidden: [...layerRules(packages), ...sharedRules(packages, root)] },
        doNotFollow: { path: "node_modules" },
        tsPreCompilationDeps: true,
        tsConfig: { fileName: tsConfigFile },
        enhancedResolveOptions: {
          exportsFields: ["exports"],
          conditionNames: ["types", "import", "node", "default"],
          extensions: [".ts", ".mts", ".js", ".mjs", ".json"],
        },
      },
      {},
      { tsConfig: { options: { baseUrl: root, paths } } },
    );
    const output = result.output;
    return output.summary.violations.map(
      (v) =>
        `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => c.name ?? c).join(" → ")})` : ""}`,
    );
  } finally {
    rmSync(tsConfigDir, { recursive: true, force: true });
  }
}

export async function checkLayers(root) {
  const packages = readWorkspacePackages(root);
  const manifestViolations = [...checkLayerTable(), ...checkManifests(packages)];
  const importViolations = await checkImports(root, packages);
  return [...manifestViolations, ...importViolations];
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const rootFlag = process.argv.indexOf("--root");
  const root = resolve(rootFlag === -1 ? process.cwd() : process.argv[rootFlag + 1]);
  const violations = await checkLayers(root);
  if (violations.length > 0) {
    console.error(`check:layers failed with ${violations.length} violation(s):`);
    for (const violation of violations) console.error(`  ✖ ${violation}`);
    process.exit(1);
  }
  const count = readWorkspacePackages(root).length;
  console.log(`check:layers: ${count} packages, manifests and imports follow docs/architecture.md`);
}
