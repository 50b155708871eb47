import type { BenchResults } from "../bench-results.js";
import { bytes, markdownTable, milliseconds } from "./format.js";

/** Headline lines of part 8 (one per measured build). */
export function isolationHeadlines(results: BenchResults): string[] {
  return (results.isolation ?? []).map(
    (row) =>
      `Tenant isolation (${row.build}): a small tenant's history p50 ${milliseconds(row.smallAloneP50Ms)} alone, ${milliseconds(row.smallBesideP50Ms)} while another tenant's ${row.largeTurns} × ${row.imageMiB} MiB image history is read (/healthz p50 ${milliseconds(row.healthBesideP50Ms)}, max ${milliseconds(row.healthBesideMaxMs)})`,
  );
}

/** Part 6: one tenant's large content beside another tenant's small reads. */
export function isolationSection(results: BenchResults): string[] {
  const rows = results.isolation ?? [];
  if (rows.length === 0) return [];
  const first = rows[0]!;
  return [
    "## 8. Tenant isolation: large content beside small reads",
    "",
    `One tenant's conversation holds ${first.largeTurns} user turns with a ${first.imageMiB} MiB image each ` +
      `(its history answer is ${bytes(first.largeHistoryBytes)}), another tenant's four short turns; both are committed ` +
      "through the store as the gateway commits turns. `cursor-gateway serve` (its own process, SQLite) then answers the small " +
      `tenant's \`GET /v1/conversations/{id}/history\` and \`/healthz\` ${first.samples} times each, alone, then while two ` +
      "other processes read the large tenant's history in a loop. A baseline build (`--baseline-server`) is measured on the " +
      "same data, seeded with its own store.",
    "",
    markdownTable({
      header: [
        "build",
        "small history p50 / p95 alone",
        "small history p50 / p95 / max beside",
        "/healthz p50 alone",
        "/healthz p50 / p95 / max beside",
        "large reads meanwhile",
      ],
      rows: rows.map((row) => [
        row.build,
        `${milliseconds(row.smallAloneP50Ms)} / ${milliseconds(row.smallAloneP95Ms)}`,
        `${milliseconds(row.smallBesideP50Ms)} / ${milliseconds(row.smallBesideP95Ms)} / ${milliseconds(row.smallBesideMaxMs)}`,
        milliseconds(row.healthAloneP50Ms),
        `${milliseconds(row.healthBesideP50Ms)} / ${milliseconds(row.healthBesideP95Ms)} / ${milliseconds(row.healthBesideMaxMs)}`,
        String(row.largeReads),
      ]),
    }),
    "",
  ];
}
