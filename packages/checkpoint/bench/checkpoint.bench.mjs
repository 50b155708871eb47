// Checkpoint benchmark: a growing agent conversation, one checkpoint per turn, against the built
// dist. Reports, at turns 10, 100, 1 000 and 5 000, the bytes `writeCheckpoint` hands the blob
// store per turn and the time it takes (both must stay flat: O(new content)), plus the portable
// token: its length and the time to encode it with and without a segment cache, and to decode it.
// Run: pnpm --filter @cursor/checkpoint build && pnpm --filter @cursor/checkpoint bench
import { loadavg } from "node:os";
import {
  HistoryLog,
  canonicalJson,
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  requestContextEventId,
  sha256Hex,
  shortDigest,
  userTurnEventId,
} from "@cursor/run";
import {
  MemoryBlobStore,
  createCheckpointEncodeCache,
  createCheckpointState,
  decodeCheckpoint,
  encodeCheckpoint,
  writeCheckpoint,
} from "../dist/index.js";

const marks = [10, 100, 1000, 5000];
const windowSize = 10;
const secret = "bench-secret-0123456789abcdef";
const conversationId = "bench-conversation";

// Deterministic filler text: varied enough that zlib cannot collapse it to nothing.
let seed = 42;
function random() {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const words =
  "the a checkpoint history append prefix cache token tool result file function const value return import export async await error test message turn epoch digest".split(
    " ",
  );
function prose(wordCount) {
  return Array.from({ length: wordCount }, () => words[Math.floor(random() * words.length)]).join(
    " ",
  );
}

function turnMessages(index) {
  const clientMessageId = `msg-${index}`;
  const runId = `run-${index}`;
  const messages = [];
  if (index % 50 === 1) {
    const text = `# Rules\n${prose(400)}`;
    const digest = sha256Hex(text);
    messages.push(
      createRequestContextMessage({
        eventId: requestContextEventId({ clientMessageId, contextDigest: digest }),
        digest,
        text,
      }),
    );
  }
  const content = [{ type: "text", text: `<user_query>${prose(40)}</user_query>` }];
  const runtime = createRuntimeMessage({
    eventId: userTurnEventId({ clientMessageId, contentDigest: shortDigest(content) }),
    runtimeKind: "user-turn",
    content,
  });
  messages.push(
    runtime,
    createAssistantMessage({
      runId,
      step: 0,
      reasoning: prose(60),
      toolCalls: [
        {
          index: 0,
          callId: `call-${index}`,
          name: "read_file",
          arguments: `{"path":"src/f${index}.ts"}`,
        },
      ],
      replay: { openai: { encrypted: sha256Hex(`r${index}`).repeat(4) } },
    }),
    createToolResultMessage({ callId: `call-${index}`, name: "read_file", content: prose(300) }),
    createAssistantMessage({ runId, step: 1, text: prose(80) }),
  );
  const turn = Object.freeze({
    clientMessageId,
    eventId: runtime.eventId,
    runId,
    messageIds: Object.freeze(messages.map((message) => message.id)),
  });
  return { messages, turn };
}

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
// Times are medians: one GC pause or a busy neighbour should not move a row.
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/** Encodes the states of one window with a cache warmed on the turn before it. */
function measureTokens(states) {
  const cache = createCheckpointEncodeCache();
  // Warm, as a long-running gateway's cache would be.
  encodeCheckpoint({ state: states[0], secret, cache });
  const times = [];
  const compressed = [];
  let token = "";
  for (const state of states.slice(1)) {
    const before = cache.stats.bytesCompressed;
    const start = process.hrtime.bigint();
    token = encodeCheckpoint({ state, secret, cache });
    times.push(ms(start));
    compressed.push(cache.stats.bytesCompressed - before);
  }
  const last = states[states.length - 1];
  const coldStart = process.hrtime.bigint();
  encodeCheckpoint({ state: last, secret });
  const coldMs = ms(coldStart);
  const decodeStart = process.hrtime.bigint();
  decodeCheckpoint({ token, secret });
  const decodeMs = ms(decodeStart);
  return {
    "token KiB": Math.round(token.length / 1024),
    "encode ms (cached)": Number(median(times).toFixed(2)),
    "zlib input bytes (cached)": Math.round(mean(compressed)),
    "encode ms (cold)": Number(coldMs.toFixed(1)),
    "decode ms": Number(decodeMs.toFixed(1)),
  };
}

/**
 * Runs a conversation of `turnCount` turns, writing a checkpoint every turn. For each mark, the
 * writes of the window ending there are measured as they happen; the tokens of the window's
 * states are measured afterwards, so their garbage does not land in the write timings.
 */
async function run(turnCount, marks) {
  const history = new HistoryLog();
  const turns = [];
  const store = new MemoryBlobStore();
  let previous;
  const writes = [];
  const rows = [];
  let windowStates = [];
  for (let index = 1; index <= turnCount; index += 1) {
    const { messages, turn } = turnMessages(index);
    history.append(messages);
    turns.push(turn);
    const state = createCheckpointState({ conversationId, history, turns });

    const start = process.hrtime.bigint();
    const result = await writeCheckpoint({ store, previous, state });
    const elapsed = ms(start);
    const contentBytes = [...messages, turn].reduce(
      (sum, value) => sum + Buffer.byteLength(canonicalJson(value)),
      0,
    );
    writes.push({
      ms: elapsed,
      bytes: result.bytesWritten,
      manifestBytes: result.bytesWritten - contentBytes,
      objects: result.blobsWritten + result.chunksWritten,
    });
    previous = result.ref;

    const mark = marks.find((m) => index >= m - windowSize && index <= m);
    if (mark === undefined) continue;
    windowStates.push(state);
    if (index !== mark) continue;
    const window = writes.slice(-windowSize);
    rows.push({
      turn: mark,
      messages: history.length,
      "write bytes/turn": Math.round(mean(window.map((w) => w.bytes))),
      "of which manifest": Math.round(mean(window.map((w) => w.manifestBytes))),
      "write objects/turn": Number(mean(window.map((w) => w.objects)).toFixed(1)),
      "write ms/turn": Number(median(window.map((w) => w.ms)).toFixed(3)),
      ...measureTokens(windowStates),
    });
    windowStates = [];
    globalThis.gc?.();
  }
  return { rows, store };
}

// Warm the JIT on a shorter conversation first, so turn 10 is not measuring compilation.
await run(300, [100]);
globalThis.gc?.();
const { rows, store } = await run(marks[marks.length - 1], marks);

console.log(
  `node ${process.version}, load average ${loadavg()[0].toFixed(1)}; bytes: means, times: medians over the ${windowSize} turns ending at each mark`,
);
console.table(rows);
console.log(`store: ${store.size} objects, ${(store.byteLength / 1024 / 1024).toFixed(1)} MiB`);
