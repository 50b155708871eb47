// Per-turn cost of append + project at 100, 1 000 and 10 000 messages, against the built package.
// Not a test: run `pnpm --filter @cursor/run build && pnpm --filter @cursor/run bench`.
// Each turn appends a runtime message and an assistant answer, projects the ModelRequest,
// estimates its tokens from the previous turn's anchor, and (for comparison) writes the request
// with JSON.stringify, the O(history) step a provider needs anyway.
import {
  HistoryLog,
  createAssistantMessage,
  createPromptSpec,
  createRuntimeMessage,
  createToolResultMessage,
  estimateRequestTokens,
  runModelLoop,
  toModelRequest,
  tokenAnchorFor,
} from "@cursor/run";

const sizes = [100, 1_000, 10_000];
const warmupTurns = 10;
const measuredTurns = 50;

const promptSpec = createPromptSpec({
  instructions: "You are a coding agent. ".repeat(40),
  tools: [
    {
      name: "read_file",
      description: "Read a file from the workspace",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
});

const words = "the quick brown fox jumps over the lazy dog while the agent reads src/index.ts ";
const text = (n, seed) => `${seed} ${words.repeat(Math.ceil(n / words.length))}`.slice(0, n);

/** One finished turn of four messages: question, tool call, tool result, answer. */
function turnMessages(i) {
  return [
    createRuntimeMessage({
      eventId: `turn.m${i}.0000000000000000`,
      runtimeKind: "user-turn",
      content: [{ type: "text", text: text(300, `question ${i}`) }],
    }),
    createAssistantMessage({
      runId: `r${i}`,
      step: 0,
      reasoning: text(200, `thinking ${i}`),
      toolCalls: [
        { index: 0, callId: `call_${i}`, name: "read_file", arguments: `{"path":"src/${i}.ts"}` },
      ],
    }),
    createToolResultMessage({
      callId: `call_${i}`,
      name: "read_file",
      content: text(2_000, `file ${i}`),
    }),
    createAssistantMessage({ runId: `r${i}`, step: 1, text: text(400, `answer ${i}`) }),
  ];
}

const project = (history) =>
  toModelRequest({ conversationId: "bench", model: "m", promptSpec, messages: history.messages });

const instantProvider = {
  id: "instant",
  serialize: (request) => ({ body: request, warnings: [] }),
  async *stream() {
    yield { type: "text-delta", text: "ok" };
    yield {
      type: "usage",
      usage: { inputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
    };
    yield { type: "finish", reason: "stop" };
  },
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const micros = (ms) => (ms * 1_000).toFixed(1);

async function measure(size) {
  const history = new HistoryLog();
  for (let i = 0; history.length < size; i += 1) history.append(turnMessages(i));
  const started = performance.now();
  let request = project(history);
  const coldProjectMs = performance.now() - started;
  let anchor = tokenAnchorFor({ request, epoch: history.epoch, inputTokens: 50_000 });
  const samples = { append: [], project: [], estimate: [], stringify: [], loop: [] };
  let bytes = 0;
  // Phase 1: the steps of a turn one by one.
  for (let turn = 0; turn < warmupTurns + measuredTurns; turn += 1) {
    const [runtime, , , answer] = turnMessages(size + turn);
    const t0 = performance.now();
    history.append(runtime);
    const t1 = performance.now();
    request = project(history);
    const t2 = performance.now();
    estimateRequestTokens({ request, epoch: history.epoch, anchor });
    const t3 = performance.now();
    history.append(answer);
    const t4 = performance.now();
    anchor = tokenAnchorFor({ request, epoch: history.epoch, inputTokens: 50_000 });
    if (turn < warmupTurns) continue;
    samples.append.push(t1 - t0 + (t4 - t3));
    samples.project.push(t2 - t1);
    samples.estimate.push(t3 - t2);
  }
  // Phase 2: whole engine turns (check, project, estimate, stream, commit, append), with an
  // instant provider and a no-op store.
  for (let turn = 0; turn < warmupTurns + measuredTurns; turn += 1) {
    const [next] = turnMessages(size + 1_000_000 + turn);
    const t0 = performance.now();
    const outcome = await runModelLoop({
      conversationId: "bench",
      runId: `loop${turn}`,
      model: "m",
      promptSpec,
      history,
      pending: [next],
      provider: instantProvider,
      commit: () => undefined,
      compaction: { budgetTokens: 10_000_000, tokenAnchor: anchor, compact: async () => undefined },
    });
    const t1 = performance.now();
    if (outcome.reason !== "completed") throw new Error(`loop ended ${outcome.reason}`);
    if (outcome.tokenAnchor) anchor = outcome.tokenAnchor;
    if (turn >= warmupTurns) samples.loop.push(t1 - t0);
  }
  // Phase 3 (run last so its 8 MB strings do not slow the others): writing the request body,
  // the O(history) step every provider call needs anyway.
  for (let i = 0; i < 11; i += 1) {
    const t0 = performance.now();
    bytes = JSON.stringify(request).length;
    samples.stringify.push(performance.now() - t0);
  }
  return {
    size,
    coldProjectMs,
    bytes,
    ...Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])),
  };
}

// A shared machine is noisy: each size is measured `rounds` times and each column keeps its
// best median.
const rounds = 3;
await measure(sizes[1]); // JIT warm-up, discarded
const rows = [];
for (const size of sizes) {
  const runs = [];
  for (let round = 0; round < rounds; round += 1) runs.push(await measure(size));
  rows.push(
    Object.fromEntries(
      Object.keys(runs[0]).map((key) => [key, Math.min(...runs.map((r) => r[key]))]),
    ),
  );
}

const header = [
  "messages",
  "append µs",
  "project µs",
  "estimate µs",
  "loop turn µs",
  "JSON.stringify µs",
  "request bytes",
  "cold project ms",
];
const table = [
  `| ${header.join(" | ")} |`,
  `| ${header.map(() => "---:").join(" | ")} |`,
  ...rows.map(
    (r) =>
      `| ${[
        r.size.toLocaleString("en-US"),
        micros(r.append),
        micros(r.project),
        micros(r.estimate),
        micros(r.loop),
        micros(r.stringify),
        r.bytes.toLocaleString("en-US"),
        r.coldProjectMs.toFixed(1),
      ].join(" | ")} |`,
  ),
];
console.log(
  `node ${process.version}, best of ${rounds} rounds of the median of ${measuredTurns} turns` +
    ` (after ${warmupTurns} warm-up turns)` +
    "\n",
);
console.log(table.join("\n"));
