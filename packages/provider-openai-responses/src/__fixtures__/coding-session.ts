// A representative conversation, built through @cursor/run exactly as the gateway builds it:
// request context + runtime message (with an image), a tool round with two parallel calls (one
// result with an image, one error, one call id from another provider longer than 64 chars),
// replayed reasoning, a final answer, then a second user turn with a changed request context and
// a mode restriction (allowed tools).
import {
  HistoryLog,
  createAssistantMessage,
  createPromptSpec,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  sha256Hex,
  toModelRequest,
} from "@cursor/run";
import type { ModelRequest, PromptSpec } from "@cursor/run";

const pngBase64 = "iVBORw0KGgo=";
const jpegBase64 = "/9j/4AAQ";

const promptSpec: PromptSpec = createPromptSpec({
  instructions: "You are a coding agent working in the user's repository.",
  tools: [
    {
      name: "read_file",
      description: "Reads a file of the workspace.",
      inputSchema: {
        type: "object",
        required: ["path"],
        properties: { path: { type: "string", description: "Workspace-relative path." } },
        additionalProperties: false,
      },
    },
    {
      name: "run_terminal_cmd",
      description: "Runs a shell command.",
      inputSchema: {
        type: "object",
        properties: {
          command: { type: "string" },
          timeout_ms: { type: "integer", minimum: 1 },
        },
        required: ["command"],
      },
    },
    {
      name: "take_screenshot",
      description: "Screenshots the running app.",
      inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
    },
  ],
});

function requestContext(text: string, clientMessageId: string) {
  const digest = sha256Hex(text);
  return createRequestContextMessage({
    eventId: `ctx.${clientMessageId}.${digest.slice(0, 16)}`,
    digest,
    text,
  });
}

const longForeignCallId = `toolu_${"a".repeat(70)}`;

const reasoningReplay1 = {
  reasoningItems: [
    {
      type: "reasoning",
      id: "rs_001",
      summary: [{ type: "summary_text", text: "Look at the failing test first." }],
      encrypted_content: "gAAAAA-enc-1",
    },
  ],
};

const reasoningReplay2 = {
  reasoningItems: [
    {
      type: "reasoning",
      id: "rs_002",
      summary: [],
      encrypted_content: "gAAAAA-enc-2",
    },
  ],
};

export interface CodingSession {
  /** First model call of turn 1 (no assistant message yet). */
  readonly turn1Call1: ModelRequest;
  /** Second model call of turn 1, after the tool round. */
  readonly turn1Call2: ModelRequest;
  /** First model call of turn 2: changed context, ask-mode tool restriction. */
  readonly turn2Call1: ModelRequest;
}

export function codingSession(): CodingSession {
  const log = new HistoryLog();
  const project = (allowedTools?: readonly string[]) =>
    toModelRequest({
      conversationId: "conv-42",
      model: "gpt-5",
      promptSpec,
      messages: log.messages,
      maxOutputTokens: 4096,
      ...(allowedTools === undefined ? {} : { allowedTools }),
    });

  log.append([
    requestContext("<rules>Use pnpm.</rules>", "m1"),
    createRuntimeMessage({
      eventId: "turn.m1.0000000000000001",
      runtimeKind: "user-turn",
      content: [
        {
          type: "text",
          text: "<user_query>Why does the test fail? Screenshot attached.</user_query>",
        },
        { type: "image", mimeType: "image/png", data: pngBase64 },
      ],
    }),
  ]);
  const turn1Call1 = project();

  log.append([
    createAssistantMessage({
      runId: "run1",
      step: 0,
      text: "Let me look.",
      reasoning: "Look at the failing test first.",
      toolCalls: [
        {
          index: 0,
          callId: "call_read1",
          name: "read_file",
          arguments: '{"path":"src/a.test.ts"}',
        },
        { index: 1, callId: longForeignCallId, name: "take_screenshot", arguments: "{}" },
        {
          index: 2,
          callId: "call_cmd3",
          name: "run_terminal_cmd",
          arguments: '{ "command": "pnpm test" }',
        },
      ],
      replay: {
        "openai-responses": reasoningReplay1,
        anthropic: { thinking: [{ type: "thinking", thinking: "x", signature: "sig" }] },
      },
    }),
    // Results arrive out of order; the projection restores call order.
    createToolResultMessage({
      callId: "call_cmd3",
      name: "run_terminal_cmd",
      content: "exit 1: expected 2, got 3",
      isError: true,
    }),
    createToolResultMessage({
      callId: "call_read1",
      name: "read_file",
      content: "expect(add(1, 1)).toBe(2);",
    }),
    createToolResultMessage({
      callId: longForeignCallId,
      name: "take_screenshot",
      content: "",
      image: { type: "image", mimeType: "image/jpeg", data: jpegBase64 },
    }),
  ]);
  const turn1Call2 = project();

  log.append([
    createAssistantMessage({
      runId: "run1",
      step: 1,
      text: "`add` is off by one.",
      replay: { "openai-responses": reasoningReplay2 },
    }),
    requestContext("<rules>Use pnpm. Never edit tests.</rules>", "m2"),
    createRuntimeMessage({
      eventId: "turn.m2.0000000000000002",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "<user_query>Explain the fix.</user_query>" }],
    }),
  ]);
  const turn2Call1 = project(["read_file"]);

  return { turn1Call1, turn1Call2, turn2Call1 };
}
