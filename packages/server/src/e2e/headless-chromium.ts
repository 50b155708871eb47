import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";

/**
 * The system's Chromium for the report page's browser tests: `CURSOR_GATEWAY_TEST_CHROMIUM`
 * (a path), else the first of Debian's and Google's usual install paths. Without one the browser
 * tests are skipped and say why; in CI (`CI=true`) that is an error, so CI never passes without
 * running them (.ci/run installs Debian's `chromium` when it is missing).
 */
const candidates = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
];

function findChromium(): string | undefined {
  const configured = process.env.CURSOR_GATEWAY_TEST_CHROMIUM;
  if (configured !== undefined && configured !== "") {
    if (!existsSync(configured)) {
      throw new Error(`CURSOR_GATEWAY_TEST_CHROMIUM=${configured}: no such file`);
    }
    return configured;
  }
  return candidates.find((path) => existsSync(path));
}

export const chromiumPath = findChromium();

export const chromiumSkipReason =
  "no Chromium found (install Debian's chromium, or set CURSOR_GATEWAY_TEST_CHROMIUM to its path)";

if (chromiumPath === undefined) {
  if (process.env.CI === "true") {
    throw new Error(
      `CI must run the browser tests: ${chromiumSkipReason} (.ci/run installs it before pnpm test)`,
    );
  }
  console.warn(`Browser tests skipped: ${chromiumSkipReason}`);
}

/** Headless Chromium, driven by playwright-core over the DevTools protocol. */
export async function launchChromium(): Promise<Browser> {
  if (chromiumPath === undefined) throw new Error(chromiumSkipReason);
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: [
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      "--disable-gpu",
      "--font-render-hinting=none",
    ],
  });
}
