import { parseArgs } from "node:util";
import { summarizerInstructions } from "@cursor/request";
import { CacheMarkerLimitError, PrefixCacheSimulator } from "@cursor/fake-provider";
import { createGatewayClient } from "../client/gateway-client.js";
import type { CommandIo } from "./diff-command.js";
import { diffRequestBodies } from "./diff-request-bodies.js";
import type { BodyDiff } from "./diff-request-bodies.js";
import {
  cacheNamespaceFields,
  detectProviderFormat,
  isRecord,
  promptSegments,
} from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";
import { formatRecordsReport } from "./records-report.js";
import { requestEntries } from "./request-entries.js";
import type { RecordedUsage, RequestEntry } from "./request-entries.js";
import type {
  CallView,
  CallsPage,
  DivergenceResponse,
  UsageSummaryView,
} from "../usage/usage-api.js";
import type { GatewayClient } from "../client/gateway-client.js";

export const reportUsage = `cursor-gateway report --conversation ID [--url URL] [--token T] [--limit N] [--json]

Reads a running gateway's usage records of one conversation and prints, per provider call, what
the provider reported (input, cached, cache-write and output tokens, the cached ratio), the
gateway's timings, the cost (with its price source), how the call's prompt relates to the
previous call's, and every place where the prefix broke with the prefix doctor's cause and diff.
Calls without a record (a gateway without usage records, a call still running) are estimated
from the provider-request log, and marked so.
  --conversation ID   the conversation id
  --url URL           the gateway (default http://127.0.0.1:8787)
  --token T           bearer token of the tenant (when the gateway has CURSOR_GATEWAY_TOKENS)
  --limit N           at most N most recent calls (default 1000)
  --json              print the per-call analysis as JSON`;

/** One provider call of the report. */
export interface ReportedCall {
  readonly call: number;
  readonly at?: string;
  readonly provider?: string;
  readonly summarizer: boolean;
  /** Input tokens the provider reported, else the o200k count of the body (`estimated`). */
  readonly inputTokens: number;
  readonly estimated: boolean;
  readonly usage?: RecordedUsage;
  /**
   * Without usage in the log: the cached tokens the testkit's prefix-cache model gives the
   * logged bodies in order (OpenAI 1024 + 128·k granularity, Anthropic markers), at their times.
   */
  readonly simulatedCachedTokens?: number;
  /** The earlier call this one is compared with (the one before it, skipping a summariser). */
  readonly comparedWith?: number;
  /** The previous call's prompt tokens this call starts with, and its share. */
  readonly keptTokens?: number;
  readonly keptShare?: number;
  /** Follows a compaction: a prefix reset is expected here. */
  readonly afterCompaction: boolean;
  readonly diff?: BodyDiff;
}

const grouped = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
const percent = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? "–" : `${(100 * value).toFixed(1)}%`;

function isSummarizer(body: unknown): boolean {
  if (!isRecord(body)) return false;
  if (body.instructions === summarizerInstructions) return true;
  if (Array.isArray(body.system)) {
    return body.system.some((block) => isRecord(block) && block.text === summarizerInstructions);
  }
  const first = Array.isArray(body.messages) ? body.messages[0] : undefined;
  return isRecord(first) && first.content === summarizerInstructions;
}

/** The per-call analysis of a conversation's logged provider requests (oldest first). */
export function analyzeRequests(entries: readonly RequestEntry[]): ReportedCall[] {
  const calls: ReportedCall[] = [];
  let now = 0;
  const simulator = new PrefixCacheSimulator({ clock: () => now });
  let lastModelCall: number | undefined;
  let compactedSince = false;
  entries.forEach((entry, index) => {
    const format: ProviderFormat | undefined = detectProviderFormat(entry.body, entry.provider);
    const summarizer = isSummarizer(entry.body);
    const segments =
      format !== undefined && isRecord(entry.body) ? promptSegments(entry.body, format) : [];
    const counted = segments.reduce((sum, segment) => sum + segment.tokens, 0);
    now = entry.at === undefined ? now : Date.parse(entry.at) || now;
    const simulated =
      format === undefined || !isRecord(entry.body)
        ? undefined
        : simulateCall({
            simulator,
            namespace: JSON.stringify(cacheNamespaceFields(entry.body, format)),
            segments,
            anthropic: format === "anthropic",
          });
    const base = {
      call: index + 1,
      ...(entry.at === undefined ? {} : { at: entry.at }),
      ...(entry.provider === undefined ? {} : { provider: entry.provider }),
      summarizer,
      inputTokens: entry.usage?.inputTokens ?? counted,
      estimated: entry.usage === undefined,
      ...(entry.usage === undefined ? {} : { usage: entry.usage }),
      ...(entry.usage !== undefined || simulated === undefined
        ? {}
        : { simulatedCachedTokens: simulated }),
    };
    if (summarizer) {
      // The summariser's prompt is a transcript, not the conversation's prefix: not compared.
      calls.push({ ...base, afterCompaction: false });
      compactedSince = true;
      return;
    }
    const previousIndex = lastModelCall;
    lastModelCall = index;
    const afterCompaction = compactedSince;
    compactedSince = false;
    if (previousIndex === undefined || format === undefined) {
      calls.push({ ...base, afterCompaction });
      return;
    }
    const diff = diffRequestBodies({
      previous: entries[previousIndex]!.body,
      current: entry.body,
      format,
    });
    calls.push({
      ...base,
      comparedWith: previousIndex + 1,
      keptTokens: diff.sharedTokens,
      keptShare: diff.previous.tokens === 0 ? 1 : diff.sharedTokens / diff.previous.tokens,
      afterCompaction,
      diff,
    });
  });
  return calls;
}

function simulateCall({
  simulator,
  namespace,
  segments,
  anthropic,
}: {
  simulator: PrefixCacheSimulator;
  namespace: string;
  segments: Parameters<PrefixCacheSimulator["simulateOpenAI"]>[0]["segments"];
  anthropic: boolean;
}): number | undefined {
  try {
    return anthropic
      ? simulator.simulateAnthropic({ namespace, segments }).cachedTokens
      : simulator.simulateOpenAI({ namespace, segments }).cachedTokens;
  } catch (error) {
    // More than 4 markers: the provider refuses the body, nothing to simulate.
    if (CacheMarkerLimitError.isInstance(error)) return undefined;
    throw error;
  }
}

const diverged = (call: ReportedCall) =>
  call.diff !== undefined &&
  call.diff.cause.kind !== "append-only" &&
  call.diff.cause.kind !== "identical";

/** The report for a terminal. */
export function formatReport({
  conversationId,
  url,
  calls,
  title,
}: {
  conversationId: string;
  url: string;
  calls: readonly ReportedCall[];
  title?: string;
}): string {
  const lines = [
    title ??
      `conversation ${conversationId} at ${url}: ${calls.length} provider call(s) in the gateway's log (oldest first)`,
    "",
    " call | at                       | input tok | cached tok | cached % | prefix kept from the previous call",
    "------+--------------------------+-----------+------------+----------+-----------------------------------",
  ];
  let input = 0;
  let cached = 0;
  let reported = 0;
  let simulated = false;
  for (const call of calls) {
    const cachedTokens = call.usage?.cachedInputTokens ?? call.simulatedCachedTokens;
    if (cachedTokens !== undefined && !call.summarizer) {
      input += call.inputTokens;
      cached += cachedTokens;
      reported += 1;
    }
    if (call.usage === undefined && call.simulatedCachedTokens !== undefined) simulated = true;
    const mark = call.usage === undefined ? "~" : "";
    const kept = call.summarizer
      ? "compaction summariser call (not compared)"
      : call.comparedWith === undefined
        ? "(no earlier call in the log)"
        : `${percent(call.keptShare)} of call ${call.comparedWith}${
            diverged(call)
              ? ` ✖ ${call.diff!.divergence?.path ?? ""}${call.afterCompaction ? " (after a compaction: expected)" : ""}`
              : " (append-only)"
          }`;
    lines.push(
      ` ${String(call.call).padStart(4)} | ${(call.at ?? "").padEnd(24)} | ${`${mark}${grouped(call.inputTokens)}`.padStart(9)} | ${(cachedTokens === undefined ? "–" : `${mark}${grouped(cachedTokens)}`).padStart(10)} | ${(cachedTokens === undefined ? "–" : percent(cachedTokens / Math.max(1, call.inputTokens))).padStart(8)} | ${kept}`,
    );
  }
  lines.push(
    "",
    reported === 0
      ? "no call to add up"
      : `Σ over ${reported} model call(s): ${grouped(input)} input tokens, ${grouped(cached)} cached (${percent(cached / Math.max(1, input))})`,
  );
  if (simulated) {
    lines.push(
      "~ the log carries no provider usage for these calls: o200k token counts of the bodies and the cached tokens the testkit's prefix-cache model gives them (OpenAI 1024 + 128·k granularity, Anthropic markers, 5-minute TTL)",
    );
  }
  const divergences = calls.filter(diverged);
  lines.push(
    "",
    divergences.length === 0
      ? "no divergences: every call extended the previous one"
      : `divergences (${divergences.length}):`,
  );
  for (const call of divergences) {
    const diff = call.diff!;
    lines.push(
      "",
      `call ${call.call} vs call ${call.comparedWith}: first divergence ${diff.divergence?.path ?? "(none)"} (${diff.divergence?.reason ?? "–"}), ${grouped(diff.sharedTokens)} of ${grouped(diff.previous.tokens)} tokens kept${call.afterCompaction ? " — after a compaction, a prefix reset is expected" : ""}`,
      `  likely cause: ${diff.cause.summary}`,
      ...diff.diff.map((line) => `  ${line}`),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `cursor-gateway report`: returns the exit code (0 reported, 1 gateway error, 2 usage). */
export async function runReportCommand({
  argv,
  io,
  environment = process.env,
}: {
  argv: readonly string[];
  io: CommandIo;
  environment?: Record<string, string | undefined>;
}): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        conversation: { type: "string" },
        url: { type: "string" },
        token: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (error) {
    io.err.write(`cursor-gateway report: ${(error as Error).message}\n\n${reportUsage}\n`);
    return 2;
  }
  if (values.help) {
    io.out.write(`${reportUsage}\n`);
    return 0;
  }
  const limit = values.limit === undefined ? 1000 : Number(values.limit);
  if (values.conversation === undefined || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    io.err.write(
      `cursor-gateway report: --conversation is required, --limit is 1..1000\n\n${reportUsage}\n`,
    );
    return 2;
  }
  const url = (values.url ?? environment.CURSOR_GATEWAY_URL ?? "http://127.0.0.1:8787").replace(
    /\/+$/,
    "",
  );
  const client = createGatewayClient({
    baseURL: url,
    ...(values.token === undefined ? {} : { token: values.token }),
  });
  const conversationPath = `/v1/conversations/${encodeURIComponent(values.conversation)}`;
  let records: RecordsAnswer;
  let log: { status: number; body: unknown };
  try {
    records = await fetchRecords(client, conversationPath);
    log = await client.get(`${conversationPath}/provider-requests?limit=${limit}`);
  } catch (error) {
    io.err.write(`cursor-gateway report: cannot reach ${url}: ${(error as Error).message}\n`);
    return 1;
  }
  if (records.kind === "refused") {
    io.err.write(
      `cursor-gateway report: ${url} answered ${records.status}: ${JSON.stringify(records.body)}\n`,
    );
    return 1;
  }
  if (log.status !== 200) {
    io.err.write(
      `cursor-gateway report: ${url} answered ${log.status}: ${JSON.stringify(log.body)}\n`,
    );
    return 1;
  }
  const entries = requestEntries(log.body);
  if (records.kind === "unsupported") {
    // A gateway without usage records: everything is estimated, and the report says so.
    const calls = analyzeRequests(entries);
    io.out.write(
      values.json
        ? `${JSON.stringify({ conversationId: values.conversation, records: [], estimated: calls }, null, 2)}\n`
        : `${formatReport({ conversationId: values.conversation, url, calls })}\nestimated: this gateway keeps no usage records (it has no /calls endpoint); the figures above come from its in-memory provider-request log\n`,
    );
    return 0;
  }
  const shown = records.calls.slice(-limit);
  const recorded = new Set(records.calls.map((call) => call.callId));
  const withoutRecord = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => entry.callId === undefined || !recorded.has(entry.callId));
  const estimated = analyzeRequests(entries).filter((_, index) =>
    withoutRecord.some((missing) => missing.index === index),
  );
  const divergences = new Map<string, DivergenceResponse>();
  for (const call of shown) {
    if (call.prefix.status !== "broke") continue;
    const answer = await client.get(`${conversationPath}/calls/${call.callId}/divergence`);
    if (answer.status === 200) divergences.set(call.callId, answer.body as DivergenceResponse);
  }
  const summary = await client.get("/v1/usage");
  const defaultPrices =
    summary.status === 200 ? (summary.body as UsageSummaryView).defaultPrices : undefined;
  if (values.json) {
    io.out.write(
      `${JSON.stringify(
        {
          conversationId: values.conversation,
          records: shown,
          divergences: Object.fromEntries(divergences),
          estimated,
          ...(defaultPrices === undefined ? {} : { defaultPrices }),
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  let text = formatRecordsReport({
    conversationId: values.conversation,
    url,
    calls: shown,
    total: records.calls.length,
    retentionDays: records.retentionDays,
    divergences,
    defaultPrices,
  });
  if (estimated.length > 0) {
    text += `\n${formatReport({
      conversationId: values.conversation,
      url,
      calls: estimated,
      title: `estimated: ${estimated.length} call(s) in the gateway's provider-request log have no usage record (still running, or made before records were kept); o200k counts and the testkit's cache model stand in for the provider's figures`,
    })}`;
  }
  io.out.write(text);
  return 0;
}

type RecordsAnswer =
  | {
      readonly kind: "records";
      readonly calls: readonly CallView[];
      readonly retentionDays: number;
    }
  | { readonly kind: "unsupported" }
  | { readonly kind: "refused"; readonly status: number; readonly body: unknown };

/** Every usage record of the conversation, oldest first (page by page). */
async function fetchRecords(
  client: GatewayClient,
  conversationPath: string,
): Promise<RecordsAnswer> {
  const calls: CallView[] = [];
  let cursor: string | undefined;
  let retentionDays = 0;
  do {
    const answer = await client.get(
      `${conversationPath}/calls?limit=1000${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    if (answer.status === 404 && isMissingRoute(answer.body)) return { kind: "unsupported" };
    if (answer.status !== 200) return { kind: "refused", status: answer.status, body: answer.body };
    const page = answer.body as CallsPage;
    calls.push(...page.calls);
    retentionDays = page.retentionDays;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { kind: "records", calls, retentionDays };
}

/** The 404 of a gateway that has no such route (older than usage records), not of a conversation. */
function isMissingRoute(body: unknown): boolean {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === "string" && message.startsWith("no route ");
}
