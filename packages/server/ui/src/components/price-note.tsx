import type { PriceSourceView } from "../../../src/usage/usage-api.js";

/** The sources and dates of the prices behind the costs shown next to it (each source once). */
export function PriceNote({ sources }: { sources: readonly (PriceSourceView | null)[] }) {
  const seen = new Map<string, PriceSourceView>();
  for (const source of sources) {
    if (source !== null) seen.set(`${source.source}\u0000${source.asOf}`, source);
  }
  const unique = [...seen.values()].sort(
    (a, b) => a.asOf.localeCompare(b.asOf) || a.source.localeCompare(b.source),
  );
  if (unique.length === 0) return <p class="prices">No prices: no cost is shown.</p>;
  return (
    <p class="prices" data-testid="price-sources">
      Costs in USD from{" "}
      {unique.map((source, index) => (
        <span key={index}>
          {index > 0 ? "; " : ""}
          <span class="price-source">{source.source}</span> (prices as of{" "}
          <span class="price-date">{source.asOf}</span>)
        </span>
      ))}
      .
    </p>
  );
}
