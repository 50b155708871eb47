// End-to-end: the adapter, through the official SDK, against the @cursor/testkit fake provider
// over real HTTP. The fake signs thinking blocks over the history before them and simulates
// Anthropic's prefix cache, so history edits and prefix regressions show up here.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  allContentKindsConversation,
  conformancePromptSpec,
  startFakeProvider,
} from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import {
  AuthenticationError,
  ContextOverflowError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RefusalError,
  RunCancelledError,
  createAssistantMessage,
  createRuntimeMessage,
  createToolResultMessage,
  toModelRequest,
} from "@cursor/run";
import type {
  CanonicalMessage,
  JsonValue,
  ModelRequest,
  ProviderEvent,
  ToolCall,
  Usage,
} from "@cursor/run";
import { promptSpec } from "./__fixtures__/conversation.js";
import { createAnthropicAdapter } from "./anthropic-adapter.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({
    cache: { clock: () => 1_800_000_000_000, anthropicMinTokens: 1 },
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const adapter = (extra: { thinking?: { budgetTokens: number } } = {}) =>
  createAnthropicAdapter({ apiKey: "sk-ant-test", baseURL: fake.anthropicBaseURL, ...extra });

interface Turn {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  replay: Record<string, JsonValue>;
  usage: Usage | undefined;
  finish: string | undefined;
  events: ProviderEvent[];
}

/** Runs one model call and folds its events the way the model loop does. */
async function run(
  request: ModelRequest,
  options: { signal?: AbortSignal; thinking?: { budgetTokens: number } } = {},
): Promise<Turn> {
  const turn: Turn = {
    text: "",
    reasoning: "",
    toolCalls: [],
    replay: {},
    usage: undefined,
    finish: undefined,
    events: [],
  };
  const stream = adapter(options.thinking === undefined ? {} : { thinking: options.thinking });
  for await (const event of stream.stream(
    request,
    options.signal ? { signal: options.signal } : {},
  )) {
    turn.events.push(event);
    switch (event.type) {
      case "text-delta":
        turn.text += event.text;
        break;
      case "reasoning-delta":
        turn.reasoning += event.text;
        break;
      case "tool-call":
        turn.toolCalls.push({
          index: event.index,
          callId: event.callId,
          name: event.name,
          arguments: event.arguments,
        });
        break;
      case "replay":
        turn.replay = { anthropic: event.state };
        break;
      case "usage":
        turn.usage = event.usage;
        break;
      case "finish":
        turn.finish = event.reason;
        break;
    }
  }
  return turn;
}

async function failure(request: ModelRequest, signal?: AbortSignal) {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of adapter().stream(request, signal ? { signal } : {}))
      events.push(event);
  } catch (error) {
    return { events, error };
  }
  throw new Error("expected the stream to fail");
}

const userTurn = (id: string, text: string) =>
  createRuntimeMessage({
    eventId: `turn.${id}.0000000000000000`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });

const requestFor = (messages: CanonicalMessage[]): ModelRequest =>
  toModelRequest({
    conversationId: "conv-e2e",
    model: "claude-sonnet-4-6",
    promptSpec,
    messages,
  });

const assistantFrom = (turn: Turn, step: number) =>
  createAssistantMessage({
    runId: "run-e2e",
    step,
    text: turn.text,
    reasoning: turn.reasoning,
    toolCalls: turn.toolCalls,
    replay: turn.replay,
  });

/** `body` behind a proxy that counts its property reads: a body that is sent gets read. */
function watched<T extends object>(body: T): { body: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(body, {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { body: proxy, reads: () => reads };
}

describe("Anthropic adapter given the serialised request", () => {
  it("sends that body instead of serialising again, byte for byte", async () => {
    fake.enqueue({ type: "text", text: "Hi.", chunks: 1 });
    const request = requestFor([userTurn("m1", "hi")]);
    const serialized = adapter().serialize(request);
    const given = watched(serialized.body);
    for await (const event of adapter().stream(request, {
      serialized: { ...serialized, body: given.body },
    })) {
      expect(event.type).not.toBe("warning");
    }
    expect(given.reads()).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toBe(JSON.stringify(serialized.body));
  });
});

describe("anthropic adapter against the fake provider", () => {
  it("streams a text answer", async () => {
    fake.enqueue({ type: "text", text: "Hello there!", chunks: 3 });
    const turn = await run(requestFor([userTurn("m1", "hi")]));
    expect(turn.events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hell" },
      { type: "text-delta", text: "o th" },
      { type: "text-delta", text: "ere!" },
    ]);
    expect(turn.text).toBe("Hello there!");
    expect(turn.finish).toBe("stop");
    expect(turn.usage).toEqual(fake.requests[0]!.usage);
    expect(fake.requests[0]!.body).toEqual(
      adapter().serialize(requestFor([userTurn("m1", "hi")])).body,
    );
  });

  it("streams parallel tool calls with their exact argument text", async () => {
    fake.enqueue({
      type: "tool-calls",
      text: "Reading both.",
      calls: [
        { name: "read_file", arguments: '{"path": "a.ts"}', callId: "toolu_a" },
        { name: "read_file", arguments: '{"path":"b.ts"}' },
      ],
    });
    const turn = await run(requestFor([userTurn("m1", "read a and b")]));
    expect(turn.text).toBe("Reading both.");
    expect(turn.finish).toBe("tool-calls");
    expect(turn.toolCalls).toEqual([
      { index: 0, callId: "toolu_a", name: "read_file", arguments: '{"path": "a.ts"}' },
      {
        index: 1,
        callId: expect.stringMatching(/^toolu_/),
        name: "read_file",
        arguments: '{"path":"b.ts"}',
      },
    ]);
  });

  it("replays signed thinking so the next call is accepted, and an edited history is refused", async () => {
    const thinking = { budgetTokens: 2048 };
    const history: CanonicalMessage[] = [userTurn("m1", "list the files")];
    fake.enqueue({
      type: "reasoning",
      reasoning: "The user wants a listing.",
      then: {
        type: "reasoning",
        reasoning: "hidden",
        redacted: true,
        then: {
          type: "tool-calls",
          calls: [{ name: "run_command", arguments: '{"command":"ls"}' }],
        },
      },
    });
    const first = await run(requestFor(history), { thinking });
    expect(first.reasoning).toBe("The user wants a listing.");
    expect(first.replay).toEqual({
      anthropic: {
        blocks: [
          {
            type: "thinking",
            thinking: "The user wants a listing.",
            signature: expect.stringMatching(/^sig_/),
          },
          { type: "redacted_thinking", data: expect.any(String) },
        ],
      },
    });
    history.push(
      assistantFrom(first, 0),
      createToolResultMessage({
        callId: first.toolCalls[0]!.callId,
        name: "run_command",
        content: "README.md",
      }),
    );
    fake.enqueue({ type: "text", text: "One file." });
    const second = await run(requestFor(history), { thinking });
    expect(second.text).toBe("One file.");
    expect(fake.requests[1]!.status).toBe(200);
    const sent = fake.requests[1]!.body as {
      messages: Array<{ content: Array<{ type: string }> }>;
    };
    expect(sent.messages[1]!.content.map((block) => block.type)).toEqual([
      "thinking",
      "redacted_thinking",
      "tool_use",
    ]);

    // The same replay after an earlier message changed: the signature no longer matches.
    const edited = [userTurn("m1", "list the files, please"), ...history.slice(1)];
    fake.enqueue({ type: "text", text: "unused" });
    const refused = await failure(requestFor(edited), undefined);
    expect(InvalidRequestError.isInstance(refused.error)).toBe(true);
    expect((refused.error as InvalidRequestError).message).toMatch(/Invalid `signature`/);
  });

  it("reads more cached tokens turn over turn, at the best possible count", async () => {
    const history: CanonicalMessage[] = [userTurn("m1", "what is in the repo?")];
    fake.enqueue({
      type: "tool-calls",
      calls: [{ name: "run_command", arguments: '{"command":"ls"}', callId: "toolu_ls" }],
    });
    const one = await run(requestFor(history));
    history.push(
      assistantFrom(one, 0),
      createToolResultMessage({
        callId: "toolu_ls",
        name: "run_command",
        content: "README.md\nsrc",
      }),
    );
    fake.enqueue({ type: "text", text: "A README and src." });
    const two = await run(requestFor(history));
    history.push(assistantFrom(two, 1), userTurn("m2", "and in src?"));
    fake.enqueue({ type: "text", text: "Code." });
    const three = await run(requestFor(history));

    const cached = [one, two, three].map((turn) => turn.usage!.cachedInputTokens);
    expect(cached[0]).toBe(0);
    expect(cached[1]).toBeGreaterThan(cached[0]!);
    expect(cached[2]).toBeGreaterThan(cached[1]!);
    for (const recorded of fake.requests) {
      expect(recorded.cache!.pureAppend).toBe(true);
      expect(recorded.cache!.cachedTokens).toBe(recorded.cache!.bestPossibleCachedTokens);
      expect(recorded.cache!.markers.length).toBeLessThanOrEqual(4);
    }
    const [, , last] = [one, two, three];
    expect(last!.usage!.inputTokens).toBe(fake.requests[2]!.cache!.inputTokens);
    expect(last!.usage!.cacheWriteTokens).toBe(fake.requests[2]!.cache!.cacheWriteTokens);
  });

  it("still reads the previous prefix when a call appends more than 20 blocks", async () => {
    const history: CanonicalMessage[] = [userTurn("m1", "start the jobs")];
    fake.enqueue({
      type: "tool-calls",
      calls: [{ name: "run_command", arguments: '{"command":"jobs"}', callId: "toolu_jobs" }],
    });
    const one = await run(requestFor(history));
    history.push(
      assistantFrom(one, 0),
      createToolResultMessage({ callId: "toolu_jobs", name: "run_command", content: "started" }),
      ...Array.from({ length: 25 }, (_, index) =>
        createRuntimeMessage({
          eventId: `bg.job.task${index}.-`,
          runtimeKind: "background-completion",
          content: [{ type: "text", text: `job ${index} finished` }],
        }),
      ),
    );
    fake.enqueue({ type: "text", text: "All done." });
    const two = await run(requestFor(history));
    const recorded = fake.requests[1]!.cache!;
    expect(recorded.pureAppend).toBe(true);
    expect(recorded.bestPossibleCachedTokens).toBe(fake.requests[0]!.cache!.inputTokens);
    expect(two.usage!.cachedInputTokens).toBe(recorded.bestPossibleCachedTokens);
  });

  it("caches every call of a session with every content kind at the best possible count", async () => {
    const conversation = allContentKindsConversation();
    for (const snapshot of conversation.snapshots) {
      const request = toModelRequest({
        conversationId: "conv-kinds",
        model: "claude-sonnet-4-6",
        promptSpec: conformancePromptSpec,
        messages: snapshot.messages,
        ...(snapshot.allowedTools === undefined ? {} : { allowedTools: snapshot.allowedTools }),
      });
      fake.enqueue({ type: "text", text: "ok" });
      const turn = await run(request);
      expect(turn.finish).toBe("stop");
    }
    expect(fake.requests.map((recorded) => recorded.status)).toEqual(
      conversation.snapshots.map(() => 200),
    );
    for (const recorded of fake.requests) {
      expect(recorded.cache!.pureAppend).toBe(true);
      expect(recorded.cache!.cachedTokens).toBe(recorded.cache!.bestPossibleCachedTokens);
    }
    const { total } = fake.cacheStats();
    expect(total.cachedTokens).toBeGreaterThan(0);
    expect(total.prefixEfficiency).toBe(1);
  });

  it("classifies a 429 with its retry-after", async () => {
    fake.enqueue({ type: "error", status: 429, retryAfterSeconds: 3 });
    const { error } = await failure(requestFor([userTurn("m1", "hi")]));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 3000, retryable: true });
  });

  it("classifies 500 and 529 as server errors", async () => {
    for (const status of [500, 529] as const) {
      fake.enqueue({ type: "error", status });
      const { error } = await failure(requestFor([userTurn("m1", "hi")]));
      expect(ProviderServerError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status, retryable: true });
    }
    expect(fake.requests).toHaveLength(2);
  });

  it("classifies a 401 as an authentication error", async () => {
    fake.enqueue({ type: "error", status: 401 });
    const { error } = await failure(requestFor([userTurn("m1", "hi")]));
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });

  it("reports a stream cut mid-answer as a network error after the text so far", async () => {
    fake.enqueue({
      type: "cut",
      afterEvents: 5,
      reply: { type: "text", text: "abcdef", chunks: 3 },
    });
    const { events, error } = await failure(requestFor([userTurn("m1", "hi")]));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(events).toEqual([
      { type: "text-delta", text: "ab" },
      { type: "text-delta", text: "cd" },
    ]);
  });

  it("classifies the overflow refusal as a context overflow", async () => {
    fake.enqueue({ type: "context-overflow" });
    const { error } = await failure(requestFor([userTurn("m1", "hi")]));
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as ContextOverflowError).message).toMatch(
      /^prompt is too long: \d+ tokens > \d+ maximum$/,
    );
  });

  it("throws RefusalError when the model refuses", async () => {
    fake.enqueue({ type: "refusal", text: "I can't help with that." });
    const { events, error } = await failure(requestFor([userTurn("m1", "hi")]));
    expect(RefusalError.isInstance(error)).toBe(true);
    expect(events.at(-1)?.type).toBe("usage");
  });

  it("stops with RunCancelledError when the signal aborts mid-stream", async () => {
    fake.enqueue({
      type: "slow",
      delayMsPerEvent: 50,
      reply: { type: "text", text: "abcdefgh", chunks: 4 },
    });
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter().stream(requestFor([userTurn("m1", "hi")]), {
        signal: controller.signal,
      })) {
        events.push(event);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(events).toEqual([{ type: "text-delta", text: "ab" }]);
    expect(RunCancelledError.isInstance(caught)).toBe(true);
  });
});
