// Writes checkpoint-v1.json: a portable checkpoint in format version 1 (one raw-deflated
// canonical JSON document with an inline manifest, HMAC-SHA256 over the compressed payload),
// made independently of the package's decoder, with the secret and audience that sign it.
// Run from packages/checkpoint: node src/__fixtures__/make-checkpoint-v1.mjs
import { createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import {
  HistoryLog,
  backgroundCompletionEventId,
  canonicalJson,
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  createUserMessage,
  injectionEventId,
  messageDigest,
  requestContextEventId,
  sha256Hex,
  shortDigest,
  userMessageId,
  userTurnEventId,
} from "@cursor/run";

const secret = "fixture-secret-v1-0123456789abcdef";
const audience = "tenant-a";
const conversationId = "conv-fixture-v1";
const epoch = 1;
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const contextText = "# Rules\nUse tabs.\n# Environment\nos: linux";
const contextDigest = sha256Hex(contextText);
const context = createRequestContextMessage({
  eventId: requestContextEventId({ clientMessageId: "m1", contextDigest }),
  digest: contextDigest,
  text: contextText,
});
const firstContent = [
  { type: "text", text: "<user_query>Why does the build fail? ✓</user_query>" },
  { type: "image", mimeType: "image/png", data: pixel },
];
const firstRuntime = createRuntimeMessage({
  eventId: userTurnEventId({ clientMessageId: "m1", contentDigest: shortDigest(firstContent) }),
  runtimeKind: "user-turn",
  content: firstContent,
});
const messages = [
  createSummaryMessage({ summarizedEpoch: 0, text: "Earlier: the user set up the repository." }),
  context,
  firstRuntime,
  createUserMessage({ id: userMessageId("m1"), content: [{ type: "text", text: "plain user text" }] }),
  createAssistantMessage({
    runId: "r1",
    step: 0,
    text: "Let me look.",
    reasoning: "Read the config and run the build.",
    toolCalls: [
      { index: 1, callId: "call_b", name: "run_terminal_cmd", arguments: '{"command":"pnpm build"}' },
      { index: 0, callId: "call_a", name: "read_file", arguments: '{"path":"tsconfig.json"}' },
    ],
    replay: { openai: { encryptedContent: "gAAAAB-opaque", id: "rs_1" } },
  }),
  createToolResultMessage({ callId: "call_b", name: "run_terminal_cmd", content: "error TS2307", isError: true }),
  createToolResultMessage({
    callId: "call_a",
    name: "read_file",
    content: '{"compilerOptions":{}}',
    image: { type: "image", mimeType: "image/png", data: pixel },
  }),
  createAssistantMessage({
    runId: "r1",
    step: 1,
    text: "A module path is wrong.",
    replay: { anthropic: { signature: "sig-1" } },
  }),
  createRuntimeMessage({
    eventId: backgroundCompletionEventId({ kind: "shell", taskId: "t1", toolCallId: "call_b" }),
    runtimeKind: "background-completion",
    content: [{ type: "text", text: "shell task t1 finished: success" }],
  }),
  createRuntimeMessage({
    eventId: injectionEventId("inj-1"),
    runtimeKind: "injected-context",
    content: [{ type: "text", text: "The user opened src/a.ts" }],
  }),
  createAssistantMessage({
    runId: "r2",
    step: 0,
    toolCalls: [{ index: 0, callId: "call_c", name: "grep", arguments: '{"pattern":"import"}' }],
  }),
];
const history = new HistoryLog({ epoch, messages });
const turns = [
  {
    clientMessageId: "m1",
    eventId: firstRuntime.eventId,
    runId: "r1",
    messageIds: messages.slice(1, 8).map((message) => message.id),
  },
  {
    clientMessageId: "inj-1",
    eventId: messages[9].eventId,
    runId: "r2",
    messageIds: messages.slice(9).map((message) => message.id),
  },
];
const document = {
  conversationId,
  epoch,
  headDigest: history.headDigest,
  latestRequestContextId: context.id,
  promptSpecDigest: sha256Hex("prompt spec of the fixture"),
  manifest: messages.map((message) => messageDigest(message)),
  messages,
  turns,
};
const payload = deflateRawSync(Buffer.from(canonicalJson(document), "utf8"));
const audienceBytes = Buffer.from(audience, "utf8");
const audienceLength = Buffer.alloc(4);
audienceLength.writeUInt32BE(audienceBytes.byteLength);
const mac = createHmac("sha256", secret)
  .update("cursor.checkpoint.v1\n")
  .update(audienceLength)
  .update(audienceBytes)
  .update(payload)
  .digest();
const token = `cp1.${payload.toString("base64url")}.${mac.toString("base64url")}`;
const fixture = {
  description:
    "A format version 1 checkpoint (epoch 1: summary, request context, every runtime kind, user, assistant with tool calls, reasoning and replay, tool results with an image and an error, a pending tool call). Decoding it must give `expected`.",
  secret,
  audience,
  token,
  expected: {
    formatVersion: 2,
    conversationId,
    epoch,
    messages,
    turns,
    latestRequestContextId: document.latestRequestContextId,
    promptSpecDigest: document.promptSpecDigest,
    headDigest: history.headDigest,
  },
};
writeFileSync(new URL("./checkpoint-v1.json", import.meta.url), `${JSON.stringify(fixture, null, 2)}\n`);
console.log(`wrote checkpoint-v1.json (${token.length} characters)`);
