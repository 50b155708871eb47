#!/usr/bin/env node
// What `changeset publish` would upload, checked without uploading: packs every public workspace
// package with pnpm (workspace:* ranges rewritten as on publish), then runs publint and
// attw (ESM-only profile) on each tarball. Run after `pnpm build` (`pnpm release:dry` does both).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { readWorkspacePackages } from "./check-layers.mjs";

const root = resolve(import.meta.dirname, "..");
const out = join(root, ".release-dry");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

let failures = 0;
for (const { dir, manifest } of readWorkspacePackages(root)) {
  if (manifest.private) continue;
  const packageDir = join(root, "packages", dir);
  const packed = execFileSync("pnpm", ["pack", "--pack-destination", out, "--json"], {
    cwd: packageDir,
    encoding: "utf8",
  });
  const { filename, files } = JSON.parse(packed);
  const tarball = readFileSync(filename);
  const { messages } = await publint({
    pack: {
      tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength),
    },
    strict: true,
  });
  const problems = messages.map((m) => `${m.type}: ${formatMessage(m, manifest) ?? m.code}`);
  let attwOk = true;
  try {
    execFileSync("attw", [filename, "--profile", "esm-only", "--format", "table-flipped"], {
      cwd: root,
      stdio: "pipe",
      encoding: "utf8",
    });
  } catch (error) {
    attwOk = false;
    problems.push(`attw:\n${error.stdout ?? error.message}`);
  }
  const ok = problems.length === 0 && attwOk;
  if (!ok) failures += 1;
  console.log(`${ok ? "✔" : "✖"} ${manifest.name}@${manifest.version} (${files.length} files)`);
  for (const problem of problems) console.log(`    ${problem}`);
}

console.log("\nPending releases (changeset status):");
try {
  execFileSync("pnpm", ["exec", "changeset", "status", "--verbose"], {
    cwd: root,
    stdio: "inherit",
  });
} catch {
  // `changeset status` exits non-zero when packages changed without a changeset; shown above.
}
if (failures > 0) {
  console.error(`\nrelease:dry: ${failures} package(s) would publish broken`);
  process.exit(1);
}
console.log(`\nrelease:dry: every package packs cleanly; tarballs in ${out}`);
