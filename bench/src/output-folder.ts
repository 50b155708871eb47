import { fileURLToPath } from "node:url";

/**
 * Where a run writes unless `--out` says otherwise: a full run into bench/results (the committed
 * figures the README quotes), a quick run into bench/results/quick (ignored by git), so that
 * `pnpm bench --quick` never replaces the full run's files.
 */
export function defaultOutDir(mode: "quick" | "full"): string {
  return fileURLToPath(
    new URL(mode === "quick" ? "../results/quick" : "../results", import.meta.url),
  );
}
