// A representative two-turn agent conversation in canonical form, and the ModelRequest of each
// model call in it: tool rounds (parallel calls, one id another provider produced, an error
// result, a result with an image), a user image, signed thinking + redacted thinking replay,
// a request-context change on turn 2 and a background completion merged after a tool result.
import {
  createAssistantMessage,
  createPromptSpec,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  sha256Hex,
  toModelRequest,
} from "@cursor/run";
import type { CanonicalMessage, ModelRequest } from "@cursor/run";

const tinyPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg==";

export const promptSpec = createPromptSpec({
  instructions: "You are a careful coding agent. Use tools to inspect the workspace.",
  tools: [
    {
      name: "read_file",
      description: "Read a file from the workspace.",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
      },
    },
    {
      name: "run_command",
      description: "Run a shell command.",
      inputSchema: {
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
      },
    },
  ],
});

const contextOne = "Rules: prefer small diffs.\nEnvironment: linux, repo at /work.";
const contextTwo = "Rules: prefer small diffs.\nEnvironment: linux, repo at /work, branch feature.";

const turnOneStart: CanonicalMessage[] = [
  createRequestContextMessage({
    eventId: "ctx.m1.aaaaaaaaaaaaaaaa",
    digest: sha256Hex(contextOne),
    text: contextOne,
  }),
  createRuntimeMessage({
    eventId: "turn.m1.bbbbbbbbbbbbbbbb",
    runtimeKind: "user-turn",
    content: [
      { type: "text", text: "<query>What is in this repo? See the screenshot.</query>" },
      { type: "image", mimeType: "image/png", data: tinyPng },
    ],
  }),
];

const turnOneRound: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run1",
    step: 0,
    text: "Let me look around.",
    reasoning: "List the files and read the README.",
    toolCalls: [
      { index: 0, callId: "toolu_01A", name: "run_command", arguments: '{"command":"ls"}' },
      { index: 1, callId: "call.x:1", name: "read_file", arguments: '{"path": "README.md"}' },
    ],
    replay: {
      anthropic: {
        blocks: [
          {
            type: "thinking",
            thinking: "List the files and read the README.",
            signature: "sig-run1-0",
          },
          { type: "redacted_thinking", data: "redacted-run1-0" },
        ],
      },
    },
  }),
  createToolResultMessage({ callId: "toolu_01A", name: "run_command", content: "README.md\nsrc" }),
  createToolResultMessage({
    callId: "call.x:1",
    name: "read_file",
    content: "# Demo\n![diagram](diagram.png)",
    image: { type: "image", mimeType: "image/png", data: tinyPng },
  }),
];

const turnOneAnswer: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run1",
    step: 1,
    text: "The repo has a README and a src folder.",
    reasoning: "Enough to answer.",
    replay: {
      anthropic: {
        blocks: [{ type: "thinking", thinking: "Enough to answer.", signature: "sig-run1-1" }],
      },
    },
  }),
];

const turnTwoStart: CanonicalMessage[] = [
  createRequestContextMessage({
    eventId: "ctx.m2.cccccccccccccccc",
    digest: sha256Hex(contextTwo),
    text: contextTwo,
  }),
  createRuntimeMessage({
    eventId: "turn.m2.dddddddddddddddd",
    runtimeKind: "user-turn",
    content: [{ type: "text", text: "<query>Open notes.txt</query>" }],
  }),
];

const turnTwoRound: CanonicalMessage[] = [
  createAssistantMessage({
    runId: "run2",
    step: 0,
    toolCalls: [
      { index: 0, callId: "toolu_02B", name: "read_file", arguments: '{"path":"notes.txt"}' },
    ],
    replay: {
      anthropic: {
        blocks: [{ type: "thinking", thinking: "Read it.", signature: "sig-run2-0" }],
      },
    },
  }),
  createToolResultMessage({
    callId: "toolu_02B",
    name: "read_file",
    content: "ENOENT: notes.txt",
    isError: true,
  }),
  createRuntimeMessage({
    eventId: "bg.shell.task1.-",
    runtimeKind: "background-completion",
    content: [{ type: "text", text: "<background>task1 finished: exit 0</background>" }],
  }),
];

function requestFor(messages: CanonicalMessage[]): ModelRequest {
  return toModelRequest({
    conversationId: "conv-1",
    model: "claude-sonnet-4-6",
    promptSpec,
    messages,
  });
}

/** The four model calls of the conversation, oldest first; each extends the previous one. */
export const conversationRequests: readonly ModelRequest[] = [
  requestFor([...turnOneStart]),
  requestFor([...turnOneStart, ...turnOneRound]),
  requestFor([...turnOneStart, ...turnOneRound, ...turnOneAnswer, ...turnTwoStart]),
  requestFor([
    ...turnOneStart,
    ...turnOneRound,
    ...turnOneAnswer,
    ...turnTwoStart,
    ...turnTwoRound,
  ]),
];
