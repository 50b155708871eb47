import type { CallView, DivergenceResponse, PriceSourceView } from "../usage/usage-api.js";

const grouped = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
const percent = (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`);
const ms = (value: number | null) =>
  value === null ? "–" : value < 10 ? value.toFixed(1) : grouped(value);
const usd = (value: number) => `$${value < 1 ? value.toFixed(5) : value.toFixed(2)}`;

/** What the prefix column says about a call (its comparison with the previous model call). */
function prefixNote(call: CallView, numberOf: (callId: string | null) => string): string {
  const { prefix } = call;
  switch (prefix.status) {
    case "first":
      return "first model call";
    case "extends":
      return `extends call ${numberOf(prefix.previousCallId)} (${prefix.sharedItems ?? "?"} of ${prefix.historyItems} items shared)`;
    case "broke":
      return prefix.divergence === null
        ? `✖ prefix broke (where: unknown, the previous body was not in memory)`
        : `✖ broke at ${prefix.divergence.path}: ${prefix.divergence.causeKind}`;
    case "compaction":
      return `new epoch ${call.epoch} after a compaction (reset by design)`;
    case "not-compared":
      return "compaction summariser call (not compared)";
    default: {
      const exhaustive: never = prefix.status;
      throw new Error(`unknown prefix status ${String(exhaustive)}`);
    }
  }
}

/**
 * `cursor-gateway report` from the gateway's usage records: every figure as the provider
 * reported it (nothing estimated), the gateway's timings, costs with their price source, and
 * each place the prefix broke with the prefix doctor's explanation.
 */
export function formatRecordsReport({
  conversationId,
  url,
  calls,
  total,
  retentionDays,
  divergences,
  defaultPrices,
}: {
  conversationId: string;
  url: string;
  /** The calls to print, oldest first (the last `--limit` of them). */
  calls: readonly CallView[];
  /** How many records the gateway keeps for the conversation. */
  total: number;
  retentionDays: number;
  divergences: ReadonlyMap<string, DivergenceResponse>;
  defaultPrices: PriceSourceView | undefined;
}): string {
  const first = total - calls.length + 1;
  const numbers = new Map(calls.map((call, index) => [call.callId, first + index]));
  const numberOf = (callId: string | null) =>
    callId === null ? "?" : String(numbers.get(callId) ?? "(earlier)");
  const lines = [
    `conversation ${conversationId} at ${url}: ${calls.length === total ? `${total}` : `the last ${calls.length} of ${total}`} provider call(s) with usage records (oldest first; kept ${retentionDays} days)`,
    "provider-reported tokens; times in ms: ttft = time to first token, call = provider call, gw = gateway overhead",
    "",
    " call | at                       | kind  | input tok | cached tok | cached % | write tok | output | ttft ms | call ms |  gw ms |      cost | prefix",
    "------+--------------------------+-------+-----------+------------+----------+-----------+--------+---------+---------+--------+-----------+-------",
  ];
  let previousProcess: string | undefined;
  for (const [index, call] of calls.entries()) {
    if (previousProcess !== undefined && call.process.id !== previousProcess) {
      lines.push(
        `      ↻ another gateway process from here on (started ${call.process.startedAt})`,
      );
    }
    previousProcess = call.process.id;
    const usage = call.usage;
    const outcome =
      call.outcome === "ok"
        ? ""
        : ` — ${call.outcome}${call.error === undefined ? "" : ` (${call.error.code})`}`;
    lines.push(
      [
        ` ${String(first + index).padStart(4)}`,
        call.at.padEnd(24),
        (call.kind === "model" ? "model" : "summ.").padEnd(5),
        (usage === null ? "–" : grouped(usage.inputTokens)).padStart(9),
        (usage === null ? "–" : grouped(usage.cachedInputTokens)).padStart(10),
        percent(call.cachedRatio).padStart(8),
        (usage === null ? "–" : grouped(usage.cacheWriteTokens)).padStart(9),
        (usage === null ? "–" : grouped(usage.outputTokens)).padStart(6),
        ms(call.timings.timeToFirstTokenMs).padStart(7),
        ms(call.timings.durationMs).padStart(7),
        ms(call.timings.gatewayOverheadMs).padStart(6),
        (call.cost === null ? "–" : usd(call.cost.usd)).padStart(9),
        `${prefixNote(call, numberOf)}${outcome}${call.attempt > 1 ? ` (attempt ${call.attempt})` : ""}`,
      ].join(" | "),
    );
  }
  const withUsage = calls.filter((call) => call.usage !== null);
  const sum = (pick: (call: CallView) => number) =>
    withUsage.reduce((s, call) => s + pick(call), 0);
  const input = sum((call) => call.usage!.inputTokens);
  const cached = sum((call) => call.usage!.cachedInputTokens);
  const priced = calls.filter((call) => call.cost !== null);
  const cost = priced.reduce((s, call) => s + call.cost!.usd, 0);
  const uncached = priced.reduce((s, call) => s + call.cost!.uncachedUsd, 0);
  const failed = calls.filter((call) => call.outcome !== "ok").length;
  lines.push(
    "",
    `Σ over ${calls.length} call(s)${failed === 0 ? "" : ` (${failed} not ok)`}: ${grouped(input)} input tokens, ${grouped(cached)} cached (${percent(input === 0 ? null : cached / input)}), ${grouped(sum((call) => call.usage!.cacheWriteTokens))} written to the cache, ${grouped(sum((call) => call.usage!.outputTokens))} output`,
    `cost ${usd(cost)} (the same tokens uncached: ${usd(uncached)}, saved ${usd(uncached - cost)})`,
  );
  const sources = new Map<string, string>();
  for (const call of priced) {
    const price = call.price;
    if (price === null) continue;
    sources.set(`${price.source}|${price.asOf}`, `${price.source} (as of ${price.asOf})`);
  }
  if (sources.size === 0 && defaultPrices !== undefined) {
    sources.set("default", `${defaultPrices.source} (as of ${defaultPrices.asOf})`);
  }
  for (const source of sources.values()) lines.push(`prices: ${source}`);
  const unpriced = [
    ...new Set(
      calls
        .filter((c) => c.usage !== null && c.cost === null)
        .map((c) => `${c.provider} ${c.model}`),
    ),
  ];
  if (unpriced.length > 0) {
    lines.push(
      `no price for ${unpriced.join(", ")}: not in the cost (add them with CURSOR_GATEWAY_PRICES_FILE)`,
    );
  }
  const broken = calls.filter((call) => call.prefix.status === "broke");
  lines.push(
    "",
    broken.length === 0
      ? "no prefix breaks: every model call extended the previous one (or followed a compaction)"
      : `prefix breaks (${broken.length}):`,
  );
  for (const call of broken) {
    const number = numberOf(call.callId);
    const divergence = divergences.get(call.callId);
    const view = divergence?.view ?? null;
    lines.push(
      "",
      `call ${number} vs call ${numberOf(call.prefix.previousCallId)}: ${
        call.prefix.divergence === null
          ? "first divergence unknown"
          : `first divergence ${call.prefix.divergence.path}`
      }, ${call.prefix.sharedItems ?? "?"} of ${call.prefix.previousItems ?? "?"} history items kept`,
    );
    if (call.prefix.divergence !== null)
      lines.push(`  likely cause: ${call.prefix.divergence.cause}`);
    if (view !== null) {
      lines.push(...view.diff.diff.map((line) => `  ${line}`));
      if (view.omittedDiffLines > 0)
        lines.push(`  … ${view.omittedDiffLines} more diff line(s) not kept`);
    } else if (divergence?.reason !== undefined) {
      lines.push(`  ${divergence.reason}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
