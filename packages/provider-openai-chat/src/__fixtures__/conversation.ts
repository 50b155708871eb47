import type { CanonicalMessage, ModelRequest } from "@cursor/run";
import {
  createAssistantMessage,
  createPromptSpec,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  createUserMessage,
  requestContextEventId,
  sha256Hex,
  toModelRequest,
  userTurnEventId,
} from "@cursor/run";

/**
 * A representative two-turn conversation, as the model loop would project it before each model
 * call: turn 1 has a parallel tool round (one result carries a screenshot) with recorded
 * reasoning; turn 2 starts with a changed request context, and calls a tool whose id came from
 * another provider (too long for Chat, so it is mapped).
 */
export const promptSpec = createPromptSpec({
  instructions: "You are a coding agent. Be concise.",
  tools: [
    {
      name: "read_file",
      description: "Read a file from the workspace.",
      inputSchema: {
        type: "object",
        required: ["path"],
        properties: { path: { type: "string", description: "Workspace-relative path" } },
      },
    },
    {
      name: "screenshot",
      description: "Capture the browser viewport.",
      inputSchema: { type: "object", properties: {} },
    },
    {
      name: "run_terminal_cmd",
      description: "Run a shell command.",
      inputSchema: {
        type: "object",
        required: ["command"],
        properties: { command: { type: "string" } },
      },
    },
  ],
});

export const conversationId = "conv-7f3a";
const model = "gpt-5.1";
const pngBase64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

function contextMessage(text: string, clientMessageId: string): CanonicalMessage {
  const digest = sha256Hex(text);
  return createRequestContextMessage({
    eventId: requestContextEventId({ clientMessageId, contextDigest: digest }),
    digest,
    text,
  });
}

function runtimeMessage(text: string, clientMessageId: string): CanonicalMessage {
  return createRuntimeMessage({
    eventId: userTurnEventId({ clientMessageId, contentDigest: sha256Hex(text) }),
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });
}

/** A tool call id as OpenAI Responses produces them: 53 characters, over Chat's limit of 40. */
export const foreignCallId = "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f";

const turn1Start: CanonicalMessage[] = [
  contextMessage("<rules>Use pnpm.</rules>\n<env>os: linux</env>", "m1"),
  runtimeMessage(
    "<user_query>The login test fails. Fix it.</user_query>\n<mode>agent</mode>",
    "m1",
  ),
  createUserMessage({
    id: "user:m1",
    content: [
      { type: "text", text: "Here is the failure:" },
      { type: "image", mimeType: "image/png", data: pngBase64 },
    ],
  }),
];

const turn1Round: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run1",
    step: 0,
    text: "Let me look at the test and the page.",
    reasoning: "The test probably asserts on the old button label.",
    toolCalls: [
      {
        index: 0,
        callId: "call_A1",
        name: "read_file",
        arguments: '{"path":"test/login.test.ts"}',
      },
      { index: 1, callId: "call_B2", name: "screenshot", arguments: "{}" },
    ],
    replay: {
      "openai-chat": { reasoningContent: "The test probably asserts on the old button label." },
      "openai-responses": { items: [{ type: "reasoning", encrypted_content: "gAAAA" }] },
    },
  }),
  createToolResultMessage({
    callId: "call_A1",
    name: "read_file",
    content: "expect(button).toHaveText('Sign in')",
  }),
  createToolResultMessage({
    callId: "call_B2",
    name: "screenshot",
    content: "Captured 1280x720.",
    image: { type: "image", mimeType: "image/png", data: pngBase64 },
  }),
];

const turn1End: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run1",
    step: 1,
    text: "The button now says 'Log in'; I updated the test.",
    replay: { "openai-chat": { reasoningContent: "Label changed in the last commit." } },
  }),
];

const turn2Start: CanonicalMessage[] = [
  contextMessage("<rules>Use pnpm.</rules>\n<env>os: linux\nbranch: fix-login</env>", "m2"),
  runtimeMessage("<user_query>Run the tests.</user_query>\n<mode>agent</mode>", "m2"),
];

const turn2Round: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run2",
    step: 0,
    toolCalls: [
      {
        index: 0,
        callId: foreignCallId,
        name: "run_terminal_cmd",
        arguments: '{"command": "pnpm test"}',
      },
    ],
  }),
  createToolResultMessage({
    callId: foreignCallId,
    name: "run_terminal_cmd",
    content: "exit code 1: 3 failed",
    isError: true,
  }),
];

function request(messages: CanonicalMessage[], allowedTools?: string[]): ModelRequest {
  return toModelRequest({
    conversationId,
    model,
    promptSpec,
    messages,
    ...(allowedTools === undefined ? {} : { allowedTools }),
    maxOutputTokens: 4096,
  });
}

/** The request of each model call, in order: two calls per turn (tool round, then answer). */
export function conversationRequests(): ModelRequest[] {
  const call1 = [...turn1Start];
  const call2 = [...call1, ...turn1Round];
  const call3 = [...call2, ...turn1End, ...turn2Start];
  const call4 = [...call3, ...turn2Round];
  return [
    request(call1),
    request(call2),
    request(call3, ["read_file", "run_terminal_cmd"]),
    request(call4, ["read_file", "run_terminal_cmd"]),
  ];
}
