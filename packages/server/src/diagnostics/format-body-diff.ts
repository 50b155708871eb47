import { describeNamespaceChanges } from "./diff-request-bodies.js";
import type { BodyDiff } from "./diff-request-bodies.js";
import { providerFormatLabels } from "./provider-body.js";

const grouped = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
const percent = (part: number, whole: number) =>
  whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;

/** The diff of two request bodies for a terminal. */
export function formatBodyDiff({
  diff,
  previousName,
  currentName,
}: {
  diff: BodyDiff;
  previousName: string;
  currentName: string;
}): string {
  const format = providerFormatLabels[diff.format];
  const describe = (name: string, summary: BodyDiff["previous"]) =>
    `${name}: ${format} body, ${summary.segments} prompt segments (${summary.historyItems} history items), ${grouped(summary.tokens)} tokens`;
  const lines = [
    `A ${describe(previousName, diff.previous)}`,
    `B ${describe(currentName, diff.current)}`,
    `cache namespace: ${
      diff.namespaceChanges.length === 0 ? "same" : describeNamespaceChanges(diff.namespaceChanges)
    }`,
    `shared prefix: ${diff.sharedSegments} of ${diff.previous.segments} segments, ` +
      `${diff.sharedHistoryItems} of ${diff.previous.historyItems} history items, ` +
      `${grouped(diff.sharedTokens)} of ${grouped(diff.previous.tokens)} tokens (${percent(diff.sharedTokens, diff.previous.tokens)}; o200k)`,
  ];
  if (diff.divergence === undefined) {
    lines.push("first divergence: none", `likely cause: ${diff.cause.summary}`);
    return `${lines.join("\n")}\n`;
  }
  const d = diff.divergence;
  lines.push(
    `first divergence: ${d.path || "(root)"} (${d.reason}; segment ${d.segment}: ${d.previousLabel}${d.label === d.previousLabel ? "" : ` → ${d.label}`})`,
    `likely cause: ${diff.cause.summary}`,
    "",
    `diverging item (A → B):`,
    ...diff.diff,
  );
  return `${lines.join("\n")}\n`;
}
