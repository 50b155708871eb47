import {
  HistoryLog,
  backgroundCompletionEventId,
  createAssistantMessage,
  createPromptSpec,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  createUserMessage,
  injectionEventId,
  requestContextEventId,
  sha256Hex,
  userMessageId,
  userTurnEventId,
} from "@cursor/run";
import type { CanonicalMessage, ContentPart, ImagePart, JsonValue, PromptSpec } from "@cursor/run";
import fc from "fast-check";

/** A 1×1 PNG, small enough to keep generated bodies light. */
export const tinyPng: ImagePart = {
  type: "image",
  mimeType: "image/png",
  data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
};

/** The fixed prompt spec of generated conversations: fixed mode tools, then an MCP tool. */
export const conformancePromptSpec: PromptSpec = createPromptSpec({
  instructions: "You are a coding agent. Follow the rules in the request context.",
  tools: [
    {
      name: "read_file",
      description: "Read a file of the workspace.",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" }, startLine: { type: "integer" } },
        required: ["path"],
      },
    },
    {
      name: "run_terminal",
      description: "Run a shell command.",
      inputSchema: {
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
      },
    },
    {
      name: "mcp_db_query",
      description: "Query the database (MCP server db).",
      inputSchema: { type: "object", properties: { sql: { type: "string" } }, required: ["sql"] },
    },
  ],
});

export type AgentMode = "agent" | "ask" | "plan" | "debug";

/** Which provider produced an assistant message: the adapter under test, or another one. */
export type AssistantOrigin = "self" | "other";

/** Allowed tools per mode; `agent` may call everything (undefined: no restriction). */
export const allowedToolsByMode: Readonly<Record<AgentMode, readonly string[] | undefined>> = {
  agent: undefined,
  ask: ["read_file", "mcp_db_query"],
  plan: ["read_file"],
  debug: ["read_file", "run_terminal"],
};

const contextTexts = [
  "<rules>\n- style: prefer small functions\n</rules>\n<env>os: linux; shell: bash</env>",
  "<rules>\n- style: prefer small functions\n- tests: vitest beside the code\n</rules>\n<env>os: linux; shell: bash</env>",
  "<rules>\n- style: tabs\n</rules>\n<env>os: darwin; shell: zsh</env>\n<mcp>db: query</mcp>",
];

export interface GeneratedToolCall {
  readonly tool: string;
  readonly arguments: string;
  readonly result: string;
  readonly isError: boolean;
  readonly image: boolean;
}

/** One high-level step of a generated conversation; each appends one or more messages. */
export type ConversationStep =
  | {
      readonly kind: "user-turn";
      readonly mode: AgentMode;
      /** Index into the request-context variants; appended only when it differs from the latest. */
      readonly context: number;
      readonly text: string;
      readonly image: boolean;
    }
  | { readonly kind: "user"; readonly text: string; readonly image: boolean }
  | {
      readonly kind: "assistant";
      /** Empty with reasoning: a thinking-only reply (the output ran out while reasoning). */
      readonly text: string;
      readonly reasoning: string;
      /** `other`: produced by another provider (a provider switch): only its replay entry. */
      readonly origin?: AssistantOrigin;
    }
  | {
      readonly kind: "tool-round";
      readonly text: string;
      readonly reasoning: string;
      /** `other`: the round came from another provider, so it has no replay entry of ours. */
      readonly origin?: AssistantOrigin;
      readonly calls: readonly GeneratedToolCall[];
      /** Rotates the order in which results are committed (projection must reorder them). */
      readonly commitRotation: number;
    }
  | { readonly kind: "background"; readonly text: string }
  | { readonly kind: "injection"; readonly text: string };

/** The history at a point where a model call happens (never ends with an assistant message). */
export interface ConversationSnapshot {
  /** Index of the step after which the model is called. */
  readonly afterStep: number;
  readonly messages: readonly CanonicalMessage[];
  readonly allowedTools: readonly string[] | undefined;
}

export interface GeneratedConversation {
  readonly startsWithSummary: boolean;
  /** Every message at the end (may end with an assistant message). */
  readonly messages: readonly CanonicalMessage[];
  readonly steps: readonly ConversationStep[];
  readonly snapshots: readonly ConversationSnapshot[];
}

/** What a provider's replay entry is built from: the assistant message it belongs to. */
export interface ReplayStateInput {
  readonly reasoning: string;
  readonly messageId: string;
  /** The message's text and its tool call ids, for states that describe the whole output. */
  readonly text: string;
  readonly callIds: readonly string[];
}

export interface ConversationArbitraryOptions {
  /**
   * The provider's own replay entry for an assistant message with reasoning (e.g. encrypted
   * reasoning items or a thinking signature), stored under `providerId` in `replay`.
   */
  readonly replayState?: (input: ReplayStateInput) => JsonValue;
  /** Key of `replayState` in the replay bag (the adapter id). */
  readonly providerId?: string;
  /** Longest generated conversation in steps. Default 10. */
  readonly maxSteps?: number;
}

const textArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{"json": true}',
      "line one\nline two",
      'tab\tand "quotes"',
      "<|endoftext|> is text here",
      "emoji 😀 and ü",
      " leading and trailing spaces ",
    ),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 3000 }) },
);

const argumentsArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("{}", '{"path":"src/a.ts"}', '{"command":"ls -la"}', '{"sql":"select 1"}'),
  fc
    .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
    .map((value) => JSON.stringify(value)),
);

const toolNames = conformancePromptSpec.tools.map((tool) => tool.name);

const originArbitrary: fc.Arbitrary<AssistantOrigin> = fc.constantFrom<AssistantOrigin>(
  "self",
  "self",
  "other",
);

const stepArbitrary: fc.Arbitrary<ConversationStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("user-turn" as const),
      mode: fc.constantFrom<AgentMode>("agent", "ask", "plan", "debug"),
      context: fc.nat({ max: contextTexts.length - 1 }),
      text: textArbitrary,
      image: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      text: textArbitrary,
      image: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("assistant" as const),
      text: textArbitrary,
      reasoning: fc.oneof(fc.constant(""), textArbitrary),
      origin: originArbitrary,
    }),
  },
  {
    // A thinking-only reply: reasoning (with this provider's replay state) and no text.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("assistant" as const),
      text: fc.constant(""),
      reasoning: textArbitrary,
      origin: originArbitrary,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tool-round" as const),
      text: fc.oneof(fc.constant(""), textArbitrary),
      reasoning: fc.oneof(fc.constant(""), textArbitrary),
      origin: originArbitrary,
      calls: fc.array(
        fc.record({
          tool: fc.constantFrom(...toolNames),
          arguments: argumentsArbitrary,
          result: textArbitrary,
          isError: fc.boolean(),
          image: fc.boolean(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      commitRotation: fc.nat({ max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("background" as const), text: textArbitrary }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("injection" as const), text: textArbitrary }),
  },
);

const withImage = (text: string, image: boolean): ContentPart[] =>
  image ? [{ type: "text", text }, tinyPng] : [{ type: "text", text }];

/**
 * Turns steps into canonical messages through a real `HistoryLog` (so every generated history is
 * valid) and records a snapshot wherever a model call would happen.
 */
export function buildConversation({
  steps,
  startsWithSummary = false,
  replayState,
  providerId = "provider-under-test",
}: {
  steps: readonly ConversationStep[];
  startsWithSummary?: boolean;
  replayState?: ConversationArbitraryOptions["replayState"];
  providerId?: string;
}): GeneratedConversation {
  const log = new HistoryLog();
  const snapshots: ConversationSnapshot[] = [];
  let allowedTools: readonly string[] | undefined;
  let latestContext = -1;
  const appendContext = (variant: number, clientId: string) => {
    const text = contextTexts[variant]!;
    const digest = sha256Hex(text);
    log.append(
      createRequestContextMessage({
        eventId: requestContextEventId({ clientMessageId: clientId, contextDigest: digest }),
        digest,
        text,
      }),
    );
    latestContext = variant;
  };
  if (startsWithSummary) {
    appendContext(0, "m-compacted");
    log.append(
      createSummaryMessage({ summarizedEpoch: 0, text: "Summary: the user set up the project." }),
    );
  }
  const replayFor = (
    input: ReplayStateInput,
    origin: AssistantOrigin = "self",
  ): Record<string, JsonValue> => {
    if (input.reasoning === "") return {};
    // A foreign provider's entry must be ignored by the adapter under test.
    const replay: Record<string, JsonValue> = {
      "other-provider": { opaque: `x-${input.messageId}` },
    };
    if (replayState !== undefined && origin === "self") replay[providerId] = replayState(input);
    return replay;
  };
  steps.forEach((step, index) => {
    const clientId = `m${index}`;
    switch (step.kind) {
      case "user-turn": {
        allowedTools = allowedToolsByMode[step.mode];
        if (step.context !== latestContext) appendContext(step.context, clientId);
        const content = withImage(`<mode>${step.mode}</mode>\n${step.text}`, step.image);
        log.append(
          createRuntimeMessage({
            eventId: userTurnEventId({
              clientMessageId: clientId,
              contentDigest: sha256Hex(JSON.stringify(content)),
            }),
            runtimeKind: "user-turn",
            content,
          }),
        );
        break;
      }
      case "user":
        log.append(
          createUserMessage({
            id: userMessageId(clientId),
            content: withImage(step.text, step.image),
          }),
        );
        break;
      case "assistant": {
        const id = `assistant:r${index}:0`;
        log.append(
          createAssistantMessage({
            runId: `r${index}`,
            step: 0,
            text: step.text,
            reasoning: step.reasoning,
            replay: replayFor(
              { reasoning: step.reasoning, messageId: id, text: step.text, callIds: [] },
              step.origin,
            ),
          }),
        );
        return; // no model call ends on an assistant message
      }
      case "tool-round": {
        const id = `assistant:r${index}:0`;
        const calls = step.calls.map((call, k) => ({
          index: k,
          callId: `call_${index}_${k}`,
          name: call.tool,
          arguments: call.arguments,
        }));
        log.append(
          createAssistantMessage({
            runId: `r${index}`,
            step: 0,
            text: step.text,
            reasoning: step.reasoning,
            toolCalls: calls,
            replay: replayFor(
              {
                reasoning: step.reasoning,
                messageId: id,
                text: step.text,
                callIds: calls.map((call) => call.callId),
              },
              step.origin,
            ),
          }),
        );
        const results = step.calls.map((call, k) =>
          createToolResultMessage({
            callId: `call_${index}_${k}`,
            name: call.tool,
            content: call.result,
            isError: call.isError,
            ...(call.image ? { image: tinyPng } : {}),
          }),
        );
        const rotation = step.commitRotation % results.length;
        log.append([...results.slice(rotation), ...results.slice(0, rotation)]);
        break;
      }
      case "background":
        log.append(
          createRuntimeMessage({
            eventId: backgroundCompletionEventId({ kind: "shell", taskId: `t${index}` }),
            runtimeKind: "background-completion",
            content: [
              {
                type: "text",
                text: `<background-completion status="success">${step.text}</background-completion>`,
              },
            ],
          }),
        );
        break;
      case "injection":
        log.append(
          createRuntimeMessage({
            eventId: injectionEventId(`i${index}`),
            runtimeKind: "injected-context",
            content: [{ type: "text", text: step.text }],
          }),
        );
        break;
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
    snapshots.push({ afterStep: index, messages: [...log.messages], allowedTools });
  });
  return { startsWithSummary, messages: [...log.messages], steps, snapshots };
}

/** Append-only conversations of every message kind, as `HistoryLog` snapshots. */
export function conversationArbitrary(
  options: ConversationArbitraryOptions = {},
): fc.Arbitrary<GeneratedConversation> {
  const first = stepArbitrary.filter((step) => step.kind === "user-turn");
  return fc
    .record({
      startsWithSummary: fc.boolean(),
      first,
      rest: fc.array(stepArbitrary, { maxLength: Math.max(0, (options.maxSteps ?? 10) - 1) }),
    })
    .map(({ startsWithSummary, first: head, rest }) => {
      const conversation = buildConversation({
        steps: [head, ...rest],
        startsWithSummary,
        ...(options.replayState === undefined ? {} : { replayState: options.replayState }),
        ...(options.providerId === undefined ? {} : { providerId: options.providerId }),
      });
      // Counterexamples print as their steps, not as every snapshot's full history.
      Object.defineProperty(conversation, fc.toStringMethod, {
        value: () =>
          `conversation(startsWithSummary=${startsWithSummary}) ${fc.stringify(conversation.steps)}`,
      });
      return conversation;
    });
}

/**
 * One history holding every canonical content kind: request context, summary, runtime turn with
 * an image, user message with an image, assistant text, reasoning with replay state, parallel
 * tool calls, tool results (one with an image, one an error), a tool round from another
 * provider, a thinking-only reply, background completion, injected context, and a final assistant
 * message (so the projection adds the transient user tail).
 */
export function allContentKindsConversation(
  options: Pick<ConversationArbitraryOptions, "replayState" | "providerId"> = {},
): GeneratedConversation {
  return buildConversation({
    startsWithSummary: true,
    ...options,
    steps: [
      { kind: "user-turn", mode: "agent", context: 1, text: "Fix the failing test.", image: true },
      { kind: "user", text: "Also look at this screenshot.", image: true },
      { kind: "assistant", text: "Looking at it.", reasoning: "" },
      { kind: "user-turn", mode: "debug", context: 1, text: "Go on.", image: false },
      {
        kind: "tool-round",
        text: "Reading two files.",
        reasoning: "The failure is in the parser; read it and its test.",
        calls: [
          {
            tool: "read_file",
            arguments: '{"path":"src/parse.ts"}',
            result: "export const x = 1;",
            isError: false,
            image: true,
          },
          {
            tool: "run_terminal",
            arguments: '{"command":"pnpm test"}',
            result: "exit 1",
            isError: true,
            image: false,
          },
        ],
        commitRotation: 1,
      },
      {
        kind: "tool-round",
        text: "",
        reasoning: "Reasoned by another provider.",
        origin: "other",
        calls: [
          {
            tool: "read_file",
            arguments: '{"path":"src/parse.test.ts"}',
            result: "test('x')",
            isError: false,
            image: false,
          },
        ],
        commitRotation: 0,
      },
      { kind: "assistant", text: "", reasoning: "Ran out of output while thinking." },
      { kind: "background", text: "build finished" },
      { kind: "injection", text: "The user opened src/parse.test.ts." },
      { kind: "assistant", text: "Fixed.", reasoning: "Checked both files." },
    ],
  });
}
