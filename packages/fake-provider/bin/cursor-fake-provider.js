#!/usr/bin/env node
// The bin is this committed file rather than dist/cli.js so that an install links it before
// anything is built (pnpm links workspace bins at install time, and warns when the target is
// missing). In a published package dist/ is always there.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    "cursor-fake-provider: not built yet (no dist/cli.js); run `pnpm build` at the repository root\n",
  );
  process.exit(1);
}
await import(cli.href);
