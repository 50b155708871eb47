import type { UsageSummaryView } from "../../../src/usage/usage-api.js";
import { percent, tokens, usd, dateTime } from "../format.js";
import { PriceNote } from "./price-note.js";

/** The tenant-wide figures: cached ratio, cost and what caching saved. */
export function SummaryPanel({ summary }: { summary: UsageSummaryView }) {
  const figures: [string, string, string][] = [
    ["conversations", "Conversations", tokens(summary.conversations)],
    ["calls", "Provider calls", tokens(summary.calls)],
    ["failed", "Failed calls", tokens(summary.failedCalls)],
    ["breaks", "Broken prefixes", tokens(summary.brokenPrefixes)],
    ["input", "Input tokens", tokens(summary.tokens.inputTokens)],
    ["cached", "Cached input tokens", tokens(summary.tokens.cachedInputTokens)],
    ["cached-ratio", "Cached share", percent(summary.cachedRatio)],
    ["cost", "Cost", usd(summary.cost.usd)],
    ["uncached-cost", "Same tokens uncached", usd(summary.cost.uncachedUsd)],
    ["saved", "Saved by caching", usd(summary.cost.savedUsd)],
  ];
  return (
    <section class="panel" aria-labelledby="summary-title">
      <h2 id="summary-title">All conversations</h2>
      <dl class="figures" data-testid="summary">
        {figures.map(([id, label, value]) => (
          <div key={id} class="figure">
            <dt>{label}</dt>
            <dd data-figure={id}>{value}</dd>
          </div>
        ))}
      </dl>
      <p class="meta">
        Records from {dateTime(summary.since)} to {dateTime(summary.until)}, kept{" "}
        {summary.retentionDays} days.
        {summary.unpricedCalls > 0
          ? ` ${summary.unpricedCalls} calls have no price and are left out of the costs.`
          : ""}
      </p>
      <PriceNote
        sources={[...summary.byModel.map((model) => model.price), summary.defaultPrices]}
      />
    </section>
  );
}
