import { memoryTargetRatio } from "../overhead/conversation-memory.js";
import type { BenchResults } from "../bench-results.js";
import { inputPrices } from "../cost/input-prices.js";
import { growthProviders, growthWarmUpTurns } from "../growth/turn-cost-growth.js";
import { providerLabels } from "../harness/provider-adapters.js";
import { projectionVariants, variantLabels } from "../prefix/projection-variants.js";
import type { ProjectionVariant } from "../prefix/projection-variants.js";
import type { PrefixEfficiencyResult } from "../prefix/prefix-efficiency.js";
import type { VariantTotals } from "../prefix/variant-simulation.js";
import { storeSetupLabels } from "../stores/store-throughput.js";
import { isolationHeadlines, isolationSection } from "./isolation-section.js";
import { loadHeadlines, loadSection } from "./load-section.js";
import { sessionDollars } from "./render-charts.js";
import type { ChartFile } from "./render-charts.js";
import {
  addedRatioText,
  bytes,
  count,
  dollars,
  markdownTable,
  milliseconds,
  percent,
  ratio,
  signedMilliseconds,
  tokens,
} from "./format.js";

/** The command that reproduces a run of `mode`. */
export function reproduceCommand(mode: BenchResults["settings"]["mode"]): string {
  return mode === "quick" ? "pnpm bench --quick" : "pnpm bench";
}

const dollarsOf = sessionDollars;

/** One line per headline figure, for the summary printed at the end and the report's top. */
export function headlineFigures(results: BenchResults): string[] {
  const lines: string[] = [];
  for (const result of results.prefix) {
    const ours = result.measured;
    const naive = result.variants["naive-date"];
    lines.push(
      `${providerLabels[result.provider]}: ${percent(ours.prefixEfficiency)} of the best possible cached tokens ` +
        `(${percent(ours.prefixEfficiencyOutsideCompaction)} outside compaction), ${percent(ours.cachedRatio)} of input tokens cached; ` +
        `naive system-prompt projection ${percent(naive.prefixEfficiency)} / ${percent(naive.cachedRatio)}; ` +
        `input cost ${percent(ours.relativeInputCost, 0)} of uncached vs ${percent(naive.relativeInputCost, 0)} naive`,
    );
  }
  if (results.growth.length > 0) {
    const worst = Math.max(
      ...results.growth.flatMap((row) => growthProviders.map((p) => row.ratio[p])),
    );
    const last = results.growth[results.growth.length - 1]!;
    lines.push(
      `Per-call work ÷ JSON.stringify: ${results.growth
        .map(
          (row) =>
            `${row.historyTurns} turns ${ratio(Math.max(...growthProviders.map((p) => row.ratio[p])))}`,
        )
        .join(", ")} (worst provider each; max ${ratio(worst)})`,
      `Writes per request at ${last.historyTurns} turns: checkpoint ${bytes(last.checkpointBytes)}, SQLite ${bytes(last.storeBytes)} (new content ${bytes(last.newContentBytes)}); at ${results.growth[0]!.historyTurns} turns: ${bytes(results.growth[0]!.checkpointBytes)} / ${bytes(results.growth[0]!.storeBytes)}`,
    );
  }
  for (const row of results.overhead) {
    lines.push(
      `Gateway overhead at ${row.historyTurns} turns of history, ${row.concurrency} at once: ${signedMilliseconds(row.gateway.addedEnd.p50)} p50 / ${signedMilliseconds(row.gateway.addedEnd.p99)} p99 to the end (pass-through proxy ${signedMilliseconds(row.proxy.addedEnd.p50)} / ${signedMilliseconds(row.proxy.addedEnd.p99)}: ${addedRatioText(row.ratio.endP50)} / ${addedRatioText(row.ratio.endP99)}), first text ${addedRatioText(row.ratio.firstTextP50)} p50${row.relay === undefined ? "" : `; SDK relay ${signedMilliseconds(row.relay.addedEnd.p50)}`}${row.cpuPerCallMs === undefined ? "" : `; CPU per call ${milliseconds(row.cpuPerCallMs.gateway)} vs proxy ${milliseconds(row.cpuPerCallMs.proxy)}${row.cpuPerCallMs.relay === undefined ? "" : ` and relay ${milliseconds(row.cpuPerCallMs.relay)}`}`}`,
    );
  }
  lines.push(...isolationHeadlines(results));
  lines.push(...loadHeadlines(results));
  for (const row of results.memory) {
    lines.push(
      `Memory per open conversation with ${row.historyTurns} turns: ${bytes(row.heapBytesPerConversation)}, ${ratio(row.heapBytesPerConversation / row.historyBytes)} its history's JSON (${bytes(row.historyBytes)}; target ≤ ${ratio(memoryTargetRatio)})`,
    );
  }
  const stores = results.stores;
  if (stores !== undefined) {
    lines.push(
      `Stores, ${stores.clients} conversations at once: ${stores.rows
        .map(
          (row) =>
            `${storeSetupLabels[row.setup]} ${row.requestsPerSecond.toFixed(0)} req/s, ${signedMilliseconds(row.gatewayP50Ms - row.directP50Ms)} p50`,
        )
        .join(
          "; ",
        )}${stores.postgresSkipped === undefined ? "" : " (PostgreSQL not measured: no database URL)"}`,
    );
  }
  for (const { wire, json } of results.wire?.prefix ?? []) {
    lines.push(
      `Cursor wire, ${providerLabels[wire.provider]}: ${percent(wire.measured.prefixEfficiency)} of the best possible cached tokens (JSON front door ${percent(json.prefixEfficiency)}), ${percent(wire.measured.cachedRatio)} cached (JSON ${percent(json.cachedRatio)})`,
    );
  }
  const wireRows = results.wire?.history ?? [];
  if (wireRows.length > 0) {
    lines.push(
      `Cursor wire added latency per turn: ${wireRows.map((row) => `${signedMilliseconds(row.addedP50Ms)} p50 at ${count(row.historyTurns)} turns`).join(", ")} (with every blob attached: ${wireRows.map((row) => `${signedMilliseconds(row.attachedAddedP50Ms)}`).join(", ")}); KV per turn ${wireRows.map((row) => `${bytes(row.kv.meanBytes)} at ${count(row.historyTurns)}`).join(", ")}`,
    );
  }
  return lines;
}

/** Part 6: throughput and added latency of each store set-up under the same load. */
function storesSection(results: BenchResults): string[] {
  const stores = results.stores;
  if (stores === undefined) return [];
  return [
    "## 6. Stores: SQLite and PostgreSQL, one and two processes",
    "",
    `The same load on each set-up: ${stores.clients} conversations at once, ${stores.turns} user turns each after a ` +
      "warm-up turn (one provider call per turn), sent to real `cursor-gateway serve` processes whose provider is the " +
      "testkit's fake provider in its own process (answering at once). With two processes every turn of a conversation " +
      "goes to the other process than the turn before, so each turn re-checks and reloads the head from the database. " +
      "Direct = the very provider bodies of the set-up sent straight to the fake provider at the same concurrency; " +
      "added = gateway − direct, per quantile.",
    "",
    ...(stores.postgresSkipped === undefined
      ? []
      : [`PostgreSQL was not measured: ${stores.postgresSkipped}.`, ""]),
    ...(stores.postgres === undefined
      ? []
      : [
          `PostgreSQL ${stores.postgres.version} (fsync ${stores.postgres.fsync}, synchronous_commit ` +
            `${stores.postgres.synchronousCommit}) on the same machine, over loopback TCP.`,
          "",
        ]),
    markdownTable({
      header: [
        "set-up",
        "requests",
        "throughput",
        "p50",
        "p95",
        "direct p50",
        "direct p95",
        "added p50",
        "added p95",
        "direct throughput",
      ],
      rows: stores.rows.map((row) => [
        storeSetupLabels[row.setup],
        count(row.requests),
        `${row.requestsPerSecond.toFixed(1)} req/s`,
        milliseconds(row.gatewayP50Ms),
        milliseconds(row.gatewayP95Ms),
        milliseconds(row.directP50Ms),
        milliseconds(row.directP95Ms),
        milliseconds(row.gatewayP50Ms - row.directP50Ms),
        milliseconds(row.gatewayP95Ms - row.directP95Ms),
        `${row.directRequestsPerSecond.toFixed(1)} req/s`,
      ]),
      align: ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
    }),
    "",
    ...stores.rows.flatMap((row) =>
      row.failures.length === 0
        ? []
        : [
            `${storeSetupLabels[row.setup]}: ${row.failures.length} request(s) failed, first: ${row.failures[0]}`,
            "",
          ],
    ),
  ];
}

function wireSection(results: BenchResults): string[] {
  const wire = results.wire;
  if (wire === undefined) return [];
  const out: string[] = [
    "## 7. The Cursor wire",
    "",
    "The same generated session as part 1, driven through the Cursor IDE's own protocol instead of `POST /v1/runs`: " +
      "a scripted IDE (`@cursor/wire/testing`'s `ScriptedIdeClient`, RunSSE + BidiAppend over HTTP/1.1) sends each user " +
      "turn with its Cursor request context and selected context; a user turn and its tool rounds are one Cursor turn (a " +
      "tool bridge gives each round the session's results); background completions, injected context and retries are " +
      "their Cursor actions; restarts restart the gateway. Every checkpoint's blobs go through the KV exchange. The wire " +
      "translates and streams; the conversation service, turn preparation and store are the JSON front door's, so the " +
      "prefix efficiency must be the same.",
    "",
  ];
  if (wire.prefix.length > 0) {
    out.push(
      markdownTable({
        header: [
          "provider",
          "front door",
          "provider calls",
          "prefix efficiency",
          "outside compaction",
          "cached ratio",
        ],
        rows: wire.prefix.flatMap(({ wire: result, json }) => [
          [
            providerLabels[result.provider],
            "JSON (`POST /v1/runs`)",
            count(json.providerCalls),
            percent(json.prefixEfficiency),
            percent(json.prefixEfficiencyOutsideCompaction),
            percent(json.cachedRatio),
          ],
          [
            "",
            `**Cursor wire** (${count(result.turns)} turns, ${count(result.toolRounds)} tool rounds)`,
            count(result.providerCalls),
            percent(result.measured.prefixEfficiency),
            percent(result.measured.prefixEfficiencyOutsideCompaction),
            percent(result.measured.cachedRatio),
          ],
        ]),
      }),
      "",
    );
    for (const { wire: result } of wire.prefix) {
      out.push(
        `${providerLabels[result.provider]}: ${result.compactions} compaction(s), ${result.restarts} restarts, ` +
          `KV over the session: ${count(result.kv.blobsSet)} blobs set (${bytes(result.kv.bytesSet)}), ` +
          `${count(result.kv.blobsGot)} asked for, ${result.seconds.toFixed(0)} s.`,
        "",
        ...deviationLines(result.deviations),
      );
    }
  }
  if (wire.history.length > 0) {
    out.push(
      "### Added latency and KV bytes per turn",
      "",
      "Two conversations get the same history (each resumed from a client checkpoint); then the same single-call user " +
        "turns go to one through `POST /v1/runs` and to the other through the wire, in alternation, against the fake " +
        "provider in its own process (the wire's first turn, which hands the IDE every blob of the history, is setup). " +
        "Added = wire − JSON per pair of equal turns; the wire turns alternate between a run request that attaches no " +
        "blobs and one that attaches every blob its state references (`pre_fetched_blobs`, what some IDE builds may do: " +
        "then the scripted IDE in this process encodes, and the gateway decodes, the whole history on every turn; its " +
        "cost is mostly the client's). Then identical short turns show what a turn sends over KV at each " +
        "history length (its new messages, its UI turn, one turn-record blob, the seal; every 32nd turn packs 32 turn " +
        "records into one blob): flat. The checkpoint message itself lists every message id (32 bytes each).",
      "",
      markdownTable({
        header: [
          "history (turns)",
          "turns",
          "JSON p50",
          "JSON p95",
          "wire p50",
          "wire p95",
          "added p50",
          "added p95",
          "attached: wire p50",
          "attached: added p50 / p95",
          "KV bytes per turn (mean / max)",
          "blobs per turn",
          "checkpoint root entries",
        ],
        rows: wire.history.map((row) => [
          count(row.historyTurns),
          count(row.samples),
          milliseconds(row.jsonP50Ms),
          milliseconds(row.jsonP95Ms),
          milliseconds(row.wireP50Ms),
          milliseconds(row.wireP95Ms),
          milliseconds(row.addedP50Ms),
          milliseconds(row.addedP95Ms),
          milliseconds(row.attachedP50Ms),
          `${milliseconds(row.attachedAddedP50Ms)} / ${milliseconds(row.attachedAddedP95Ms)}`,
          `${bytes(row.kv.meanBytes)} / ${bytes(row.kv.maxBytes)}`,
          row.kv.meanBlobs.toFixed(1),
          count(row.kv.rootEntries),
        ]),
      }),
      "",
    );
  }
  return out;
}

function prefixSection(results: BenchResults): string[] {
  const out: string[] = [];
  const stats = results.session.stats;
  out.push(
    "## 1. Prefix efficiency",
    "",
    `One generated agent session (\`generateAgentSession\`, seed ${results.settings.seed}, ${stats.userTurns} user turns, ` +
      `tool results around ${count(results.settings.toolResultChars)} characters) sent as ${stats.runRequests} \`POST /v1/runs\` ` +
      `requests to the real gateway (in-process \`startGateway\`, SQLite, HTTP + SSE) whose provider package talks to the ` +
      `testkit's fake provider. The session has ${stats.toolRounds} tool rounds (${stats.toolCalls} calls), ${stats.contextChanges} ` +
      `request-context changes (${stats.contextReverts} back to an earlier one), ${stats.modeSwitches} mode switches, ` +
      `${stats.backgroundCompletions} background completions (+${stats.duplicateDeliveries} duplicate deliveries), ` +
      `${stats.injections} injected contexts, ${stats.retries} retries and ${stats.restarts} gateway restarts; the context ` +
      "window is set so that the gateway compacts automatically once.",
    "",
    "Best possible = the previous request's input rounded down to the cache granularity (OpenAI 1024 + 128·k tokens, " +
      "Anthropic the last written marker). Token-weighted cached ratio = Σ cached ÷ Σ input.",
    "",
  );
  for (const result of results.prefix) {
    out.push(
      `### ${providerLabels[result.provider]} (${result.provider === "anthropic" ? "Anthropic" : "OpenAI"} cache simulation)`,
      "",
      `${result.drive.providerCalls} provider calls, ${result.drive.compactions} automatic compaction(s) ` +
        `(context window ${count(result.contextWindow)} tokens), ${result.drive.restarts} restarts, ${result.seconds.toFixed(0)} s. ` +
        `The \`ours\` re-projection reproduced the received prompt on ${result.reprojection.matched} of ` +
        `${result.reprojection.checked} model calls${result.reprojection.firstMismatch === undefined ? "" : ` (first difference: ${result.reprojection.firstMismatch})`}.`,
      "",
      ...deviationLines(result.drive.deviations),
      markdownTable({
        header: [
          "projection",
          "Σ input",
          "Σ cached",
          "Σ best possible",
          "prefix efficiency",
          "outside compaction",
          "cached ratio",
        ],
        rows: [
          ["**measured: gateway → fake provider**", ...totalsCells(result.measured)],
          ...projectionVariants.map((variant) => [
            variant === "ours" ? `${variantLabels[variant]}, re-projected` : variantLabels[variant],
            ...totalsCells(result.variants[variant]),
          ]),
        ],
      }),
      "",
      ...gatewayRecordLines(result),
    );
  }
  out.push(
    "![prefix efficiency](prefix-efficiency.svg)",
    "",
    ...results.prefix.map(
      (result) =>
        `![cached share per call, ${result.provider}](cached-per-call-${result.provider}.svg)`,
    ),
    "",
  );
  return out;
}

/** Requests the gateway refused although the session expected them to pass. */
function deviationLines(deviations: readonly string[]): string[] {
  if (deviations.length === 0) return [];
  return [
    `**${deviations.length} request(s) deviated from the session script** (resent as noted; each is a gateway or generator bug to look at):`,
    "",
    ...deviations.map((deviation) => `- ${deviation}`),
    "",
  ];
}

function totalsCells(totals: VariantTotals): string[] {
  return [
    tokens(totals.inputTokens),
    tokens(totals.cachedTokens),
    tokens(totals.bestPossibleCachedTokens),
    percent(totals.prefixEfficiency),
    percent(totals.prefixEfficiencyOutsideCompaction),
    percent(totals.cachedRatio),
  ];
}

function growthSection(results: BenchResults): string[] {
  if (results.growth.length === 0) return [];
  const s = results.settings;
  return [
    "## 2. Per-turn cost growth",
    "",
    `A generated session (seed ${s.seed + 1}, no compaction) replayed into a canonical conversation exactly as the gateway ` +
      `keeps it (\`parseAgentRunRequest\` → \`prepareTurn\` → append → scripted answer), without HTTP. For the ${s.growthWindowTurns} ` +
      "user turns after each history length, every model call is timed: `prepareTurn`, appending the plan, `toModelRequest` over " +
      "the whole epoch, and each provider package's `serialize`, against the floor `JSON.stringify` of the body that `serialize` " +
      "returned (the one O(history) step a provider call needs anyway). Medians; ratio = (prepare + append + project + serialise) ÷ stringify. " +
      `The code is warm, as in a gateway that has served requests: an untimed ${growthWarmUpTurns}-turn session is replayed the same way first. ` +
      "A young-generation GC runs before each measured request and a full one before each window (a full GC before every request " +
      "would drop V8's inline-cache stubs and time the step after it several times slower than a gateway runs it).",
    "",
    markdownTable({
      header: [
        "history (turns / messages)",
        "body",
        "prepare",
        "append",
        "project",
        ...growthProviders.map((p) => `serialise ${shortName(p)}`),
        ...growthProviders.map((p) => `stringify ${shortName(p)}`),
        ...growthProviders.map((p) => `ratio ${shortName(p)}`),
      ],
      rows: results.growth.map((row) => [
        `${count(row.historyTurns)} / ${count(row.historyMessages)}`,
        bytes(row.bodyBytes["openai-responses"]),
        milliseconds(row.prepareMs),
        milliseconds(row.appendMs),
        milliseconds(row.projectMs),
        ...growthProviders.map((p) => milliseconds(row.serializeMs[p])),
        ...growthProviders.map((p) => milliseconds(row.stringifyMs[p])),
        ...growthProviders.map((p) => ratio(row.ratio[p])),
      ]),
    }),
    "",
    "![ratio](turn-cost-ratio.svg)",
    "",
    "![time by step](turn-cost-ms.svg)",
    "",
  ];
}

function shortName(provider: (typeof growthProviders)[number]): string {
  return provider === "openai-responses" ? "Resp." : provider === "openai-chat" ? "Chat" : "Anthr.";
}

function writesSection(results: BenchResults): string[] {
  if (results.growth.length === 0) return [];
  return [
    "## 3. Checkpoint and store writes per request",
    "",
    "Same replay: after every request of the measured turns, the head is written with `writeCheckpoint` (chained from the " +
      "previous checkpoint: `bytesWritten` into a `MemoryBlobStore`) and committed to the gateway's `SqliteStore` as the " +
      "gateway commits it (messages, turn records, run row). Store bytes are payload bytes the commit adds: new blob bytes " +
      "plus the inserted rows' column bytes (8 per integer; page and index overhead not counted). New content = canonical " +
      "JSON of the messages the request added, the least any store must write. Client delta token = the " +
      "`checkpoint.delta` token a client of the delta form receives for the request (`encodeCheckpointDelta` from the " +
      "previous request's head): what the client receives and sends back per turn.",
    "",
    markdownTable({
      header: [
        "history (turns)",
        "requests",
        "new content",
        "checkpoint bytes",
        "checkpoint time",
        "client delta token",
        "delta encode time",
        "SQLite bytes",
        "SQLite commit time",
      ],
      rows: results.growth.map((row) => [
        count(row.historyTurns),
        String(row.requests),
        bytes(row.newContentBytes),
        bytes(row.checkpointBytes),
        milliseconds(row.checkpointMs),
        row.deltaTokenBytes === undefined ? "—" : bytes(row.deltaTokenBytes),
        row.deltaTokenMs === undefined ? "—" : milliseconds(row.deltaTokenMs),
        bytes(row.storeBytes),
        milliseconds(row.storeMs),
      ]),
    }),
    "",
    "![writes](writes-per-request.svg)",
    "",
  ];
}

function overheadSection(results: BenchResults): string[] {
  const out: string[] = [];
  if (results.overhead.length > 0) {
    out.push(
      "## 4. Gateway overhead",
      "",
      "Measured like the public gateway benchmarks. Conversations with the given history are resumed from client " +
        "checkpoints in a gateway process (`cursor-gateway serve` of this build, started as the README's production " +
        "command `node --max-semi-space-size=64 …/cli.js serve`, OpenAI Responses package, SQLite; " +
        "setup, not counted), its own process like the pass-through proxy, so the benchmark client's work never runs on " +
        "the gateway's thread. Every path is warmed up first, as the public benchmarks do (a gateway serves thousands " +
        "of calls, so its JIT-compiled code is what it costs): warm-up conversations of the same history get up to " +
        "320 calls on every path (fewer for long histories), not counted. Then, round after round, " +
        "each measured conversation gets a new user message through the gateway (measured calls rotate over enough " +
        "conversations that none takes more than 10 short turns, so every call sees the stated history), and the " +
        "provider body the gateway sent (taken from the fake provider's record, so the gateway process does no " +
        "work for the benchmark between its calls) is posted " +
        "byte for byte straight to the fake provider (`direct`) and through a bare Node pass-through proxy in its own " +
        "process that pipes bytes without parsing (`proxy`: the floor of any Node gateway). The three paths alternate " +
        "round by round, all conversations of a path streaming at once; the fake provider (its own process) answers every " +
        "call with the same short text stream. Added = path − direct per sample (same body, same round); ratio = " +
        "gateway-added ÷ proxy-added. Targets: ratio ≤ 2 at p50 and ≤ 3 at p99; at 1 000 turns added end p50 ≤ one " +
        "`JSON.stringify` of the body + 2× the proxy's. A fourth path, the SDK relay, is this design's floor: a Fastify " +
        "server in its own process handing the same body to the official OpenAI SDK and re-emitting its text deltas, " +
        "without any of the gateway's work (history, store, checkpoint, usage records). CPU per call is the CPU time (user + system, from `/proc`) the " +
        "gateway process and the proxy process spent on the measured calls, divided by the calls: unlike latency it " +
        "does not depend on the machine's load.",
      "",
      markdownTable({
        header: [
          "history (turns)",
          "at once",
          "calls",
          "body",
          "stringify",
          "direct first / end p50",
          "proxy added first p50 / p99",
          "gateway added first p50 / p99",
          "ratio first p50 / p99",
          "proxy added end p50 / p95 / p99",
          "gateway added end p50 / p95 / p99",
          "ratio end p50 / p99",
          "SDK relay added end p50 / p99",
          "checkpoint event (delta / full)",
          "CPU per call gateway / proxy / relay",
          "errors",
        ],
        rows: results.overhead.map((row) => [
          count(row.historyTurns),
          String(row.concurrency),
          String(row.samples),
          bytes(row.bodyBytes),
          milliseconds(row.stringifyMs),
          `${milliseconds(row.direct.firstText.p50)} / ${milliseconds(row.direct.end.p50)}`,
          `${milliseconds(row.proxy.addedFirstText.p50)} / ${milliseconds(row.proxy.addedFirstText.p99)}`,
          `${milliseconds(row.gateway.addedFirstText.p50)} / ${milliseconds(row.gateway.addedFirstText.p99)}`,
          `${addedRatioText(row.ratio.firstTextP50)} / ${addedRatioText(row.ratio.firstTextP99)}`,
          `${milliseconds(row.proxy.addedEnd.p50)} / ${milliseconds(row.proxy.addedEnd.p95)} / ${milliseconds(row.proxy.addedEnd.p99)}`,
          `${milliseconds(row.gateway.addedEnd.p50)} / ${milliseconds(row.gateway.addedEnd.p95)} / ${milliseconds(row.gateway.addedEnd.p99)}`,
          `${addedRatioText(row.ratio.endP50)} / ${addedRatioText(row.ratio.endP99)}`,
          // Older reports have no relay or CPU figures.
          row.relay === undefined
            ? "—"
            : `${milliseconds(row.relay.addedEnd.p50)} / ${milliseconds(row.relay.addedEnd.p99)}`,
          `${bytes(row.checkpointEventBytes)} / ${bytes(row.fullCheckpointBytes)}`,
          row.cpuPerCallMs === undefined
            ? "—"
            : [row.cpuPerCallMs.gateway, row.cpuPerCallMs.proxy, row.cpuPerCallMs.relay]
                .map((value) => (value === undefined ? "—" : milliseconds(value)))
                .join(" / "),
          String(row.errors),
        ]),
      }),
      "",
      "![overhead](gateway-overhead.svg)",
      "",
      ...deviationLines(results.overhead.flatMap((row) => row.deviations)),
    );
  }
  if (results.memory.length > 0) {
    out.push(
      "### Memory per open conversation",
      "",
      "Conversations opened in one in-process gateway (each resumed from a checkpoint and given one turn, so the gateway " +
        "holds its head, its provider-request log and its checkpoint cache), in three equal batches after three warm-up " +
        "conversations; the figure is what the third batch added after a full GC, divided by its size: what one more open " +
        "conversation costs (the V8 heap without compiled code, which is the JIT's, plus array buffers; two batches before " +
        "the baseline, because V8 is still optimising the request path during the second). The issue's target " +
        "is at most 1.5 × the history's JSON size. Everything the gateway keeps in " +
        "memory is held to one byte budget (`CURSOR_GATEWAY_CACHE_BYTES`, default 256 MiB; least recently used out first), " +
        "so the number of open conversations it holds is about that budget divided by the cache ledger's estimate per " +
        "conversation (last column; the measurement runs with a 2 GiB budget, and no head was evicted during it).",
      "",
      markdownTable({
        header: [
          "history (turns / messages)",
          "conversations (measured batch)",
          "history as JSON",
          "memory per conversation",
          `÷ history JSON (target ≤ ${ratio(memoryTargetRatio)})`,
          "cache ledger's estimate",
        ],
        rows: results.memory.map((row) => [
          `${count(row.historyTurns)} / ${count(row.messages)}`,
          String(row.conversations),
          bytes(row.historyBytes),
          `${bytes(row.heapBytesPerConversation)}${row.gcExposed ? "" : " (no --expose-gc)"}`,
          ratio(row.heapBytesPerConversation / row.historyBytes),
          row.cacheBytesPerConversation === undefined ? "–" : bytes(row.cacheBytesPerConversation),
        ]),
      }),
      "",
    );
  }
  return out;
}

function costSection(results: BenchResults): string[] {
  if (results.prefix.length === 0) return [];
  const rows: string[][] = [];
  for (const result of results.prefix) {
    const prices = inputPrices[result.provider];
    const ours = dollarsOf(result, result.measured);
    const uncached = (result.measured.inputTokens * prices.input) / 1_000_000;
    rows.push([
      `${providerLabels[result.provider]} (${prices.model})`,
      "**measured: gateway**",
      percent(result.measured.relativeInputCost),
      dollars(ours),
      "1.00×",
    ]);
    for (const variant of projectionVariants.filter((v): v is ProjectionVariant => v !== "ours")) {
      const totals = result.variants[variant];
      const cost = dollarsOf(result, totals);
      rows.push([
        "",
        variantLabels[variant],
        percent(totals.relativeInputCost),
        dollars(cost),
        ratio(cost / ours),
      ]);
    }
    rows.push(["", "every token uncached", "100.0%", dollars(uncached), ratio(uncached / ours)]);
  }
  return [
    "## 5. Simulated input cost",
    "",
    "The session's input tokens priced with the providers' published cached-token discounts, for each projection of the same " +
      "session (relative cost: 100% = every input token billed at the full price).",
    "",
    ...results.prefix.map((r) => `- ${inputPrices[r.provider].note}.`),
    "",
    markdownTable({
      header: [
        "provider (model)",
        "projection",
        "relative input cost",
        "input cost of the session",
        "vs the gateway",
      ],
      rows,
      align: ["l", "l", "r", "r", "r"],
    }),
    "",
    "![cost](input-cost.svg)",
    "",
  ];
}

function methodSection(): string[] {
  return [
    "## How the baselines are built",
    "",
    "The baselines are not separate implementations that could be made to look bad. After every gateway request the " +
      "benchmark reads the canonical history the gateway stored (`GET /v1/conversations/{id}/history`); for every model " +
      "call it takes the messages that call saw and projects them four ways with `@cursor/run`'s `toModelRequest`, " +
      "serialises each with the same provider package, renders it exactly as the fake provider does and prices it with a " +
      "fresh `PrefixCacheSimulator` per projection at the same simulated clock. The gateway's own summariser call is priced " +
      "unchanged in every projection.",
    "",
    "- **this gateway, re-projected**: the canonical history as it is. It must reproduce the bodies the gateway sent " +
      "(checked call by call above), which is what makes the other rows comparable.",
    "- **naive: context + date / time in the system prompt**: the request-context messages are taken out of the history and " +
      "the latest one is appended to the instructions, followed by `Today's date: …` (or `Current time: …` to the minute) " +
      "from the request's timestamp: what a gateway does that rebuilds its system prompt per request.",
    "- **no dedup**: the latest request context is appended again before every user turn, changed or not " +
      "(append-only, so the cache still hits, but every turn pays for the context again).",
    "",
  ];
}

/** `bench/results/latest.md`. */
export function renderReport({
  results,
  charts,
}: {
  results: BenchResults;
  charts: readonly ChartFile[];
}): string {
  const m = results.machine;
  const lines = [
    results.settings.mode === "quick" ? "# Benchmark results (QUICK RUN)" : "# Benchmark results",
    "",
    ...(results.settings.mode === "quick"
      ? [
          "> **A quick run**: a short session and small histories, for a fast check. The figures the " +
            "README quotes come from a full `pnpm bench` (bench/results/latest.md).",
          "",
        ]
      : []),
    `A **${results.settings.mode}** run of \`${reproduceCommand(results.settings.mode)}\`, started ${results.startedAt}, ` +
      `${Math.round(results.durationSeconds)} s. Node ${m.node} on ${m.platform}, ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB; ` +
      `1-minute load average ${m.loadAverage[0].toFixed(1)} at the start, ${m.loadAverage[1].toFixed(1)} at the end ` +
      "(timings on a shared machine are noisy; ratios and byte counts are not).",
    "",
    "## Headline",
    "",
    ...headlineFigures(results).map((line) => `- ${line}`),
    "",
    ...failuresSection(results),
    ...prefixSection(results),
    ...growthSection(results),
    ...writesSection(results),
    ...overheadSection(results),
    ...costSection(results),
    ...storesSection(results),
    ...wireSection(results),
    ...isolationSection(results),
    ...loadSection(results),
    ...methodSection(),
    "## Charts",
    "",
    ...charts.map((chart) => `- [${chart.title}](${chart.file})`),
    "",
    ...profileAppendix(results),
  ];
  return lines.join("\n");
}

/** Measurements that failed (the run went on without them; the CLI exited 1). */
function failuresSection(results: BenchResults): string[] {
  const failures = results.failures ?? [];
  if (failures.length === 0) return [];
  return [
    "## Failed measurements",
    "",
    ...failures.map((failure) => `- **Failed**: ${failure}`),
    "",
  ];
}

function profileAppendix(results: BenchResults): string[] {
  const rows = results.profile ?? [];
  if (rows.length === 0) return [];
  const out = [
    "## Appendix: CPU profiles",
    "",
    "One run per history length: a conversation resumed in an in-process gateway, then requests with one model call each " +
      "sent while `node:inspector`'s sampling profiler runs (200 µs interval). The profile holds the gateway's work and the " +
      "bench client's (reading the SSE stream); the fake provider runs in its own process. Top self time, idle excluded.",
    "",
  ];
  for (const row of rows) {
    out.push(
      `### ${count(row.historyTurns)} turns of history (${row.requests} requests, ${milliseconds(row.busyMs)} busy)`,
      "",
      markdownTable({
        header: ["function", "where", "self", "share"],
        rows: row.top.map((entry) => [
          `\`${entry.functionName}\``,
          entry.location,
          milliseconds(entry.selfMs),
          percent(entry.share),
        ]),
      }),
      "",
    );
  }
  return out;
}

/** The gateway's own figures (its usage records) beside the fake provider's. */
function gatewayRecordLines(result: PrefixEfficiencyResult): string[] {
  const records = result.gatewayRecords;
  if (records === undefined) return [];
  const prices = records.prices.map((price) => `${price.source}, as of ${price.asOf}`).join("; ");
  return [
    `The gateway's own usage records (\`GET /v1/conversations/{id}/calls\`): ${count(records.calls)} calls, ` +
      `Σ input ${count(records.inputTokens)}, Σ cached ${count(records.cachedInputTokens)}, ` +
      `Σ cache write ${count(records.cacheWriteTokens)}, Σ output ${count(records.outputTokens)}, ` +
      `cached ratio ${percent(records.cachedRatio)}; cost $${records.costUsd.toFixed(4)}, ` +
      `saved $${records.savedUsd.toFixed(4)} against the same tokens uncached (prices: ${prices === "" ? "none" : prices}). ` +
      (records.matchesProvider
        ? "Every record equals what the fake provider counted for its call."
        : `**They differ from the fake provider's count** (${records.firstMismatch}).`),
    "",
  ];
}
