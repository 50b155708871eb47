#!/usr/bin/env node
// Adds up the vitest JSON reports of every workspace package (turbo restores them from its
// cache) and prints one closing line, so CI and people see the total at the end of `pnpm test`.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readWorkspacePackages } from "./check-layers.mjs";

const root = resolve(import.meta.dirname, "..");
const reports = [
  ["tooling", join(root, "scripts", ".vitest-result.json")],
  ["fresh clone of the README", join(root, "scripts", ".vitest-fresh-clone.json")],
  ...readWorkspacePackages(root).map((p) => [
    p.manifest.name,
    join(root, "packages", p.dir, ".vitest-result.json"),
  ]),
  // The private benchmark package lives outside packages/.
  ["@cursor/bench", join(root, "bench", ".vitest-result.json")],
];
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const [name, file] of reports) {
  if (!existsSync(file)) {
    missing.push(name);
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  console.log(
    `  ${name.padEnd(36)} ${report.numPassedTests} passed, ${report.numFailedTests} failed`,
  );
}
if (missing.length > 0) console.log(`  no test report for: ${missing.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
