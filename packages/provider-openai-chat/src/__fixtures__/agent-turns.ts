import type {
  CanonicalMessage,
  JsonValue,
  ModelRequest,
  ProviderAdapter,
  ProviderEvent,
  ToolCall,
  Usage,
} from "@cursor/run";
import {
  createAssistantMessage,
  createPromptSpec,
  createUserMessage,
  toModelRequest,
} from "@cursor/run";

/** What one model call produced, gathered from its events the way the model loop does. */
export interface CollectedAnswer {
  readonly events: ProviderEvent[];
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: ToolCall[];
  readonly replay: JsonValue | undefined;
  readonly usage: Usage | undefined;
  readonly finish: string | undefined;
}

export async function collectAnswer(
  adapter: ProviderAdapter,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<CollectedAnswer> {
  const events: ProviderEvent[] = [];
  for await (const event of adapter.stream(request, signal === undefined ? {} : { signal })) {
    events.push(event);
  }
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  let replay: JsonValue | undefined;
  let usage: Usage | undefined;
  let finish: string | undefined;
  for (const event of events) {
    switch (event.type) {
      case "text-delta":
        text += event.text;
        break;
      case "reasoning-delta":
        reasoning += event.text;
        break;
      case "tool-call":
        toolCalls.push({
          index: event.index,
          callId: event.callId,
          name: event.name,
          arguments: event.arguments,
        });
        break;
      case "replay":
        replay = event.state;
        break;
      case "usage":
        usage = event.usage;
        break;
      case "finish":
        finish = event.reason;
        break;
      case "warning":
        break;
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown event ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return { events, text, reasoning, toolCalls, replay, usage, finish };
}

/** Instructions long enough (well over 1024 o200k tokens) for OpenAI-style prefix caching. */
const longInstructions = Array.from(
  { length: 120 },
  (_, line) =>
    `Rule ${line + 1}: keep every change small, explain it briefly, run the tests before you answer, and never edit generated files.`,
).join("\n");

const agentPromptSpec = createPromptSpec({
  instructions: longInstructions,
  tools: [
    {
      name: "read_file",
      description: "Read a file.",
      inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
    },
    {
      name: "grep",
      description: "Search the workspace.",
      inputSchema: {
        type: "object",
        required: ["pattern"],
        properties: { pattern: { type: "string" } },
      },
    },
  ],
});

/** A growing canonical history and the requests projected from it. */
export class AgentConversation {
  readonly messages: CanonicalMessage[] = [];
  #step = 0;
  constructor(readonly conversationId: string) {}

  user(id: string, text: string): void {
    this.messages.push(createUserMessage({ id: `user:${id}`, content: [{ type: "text", text }] }));
  }

  assistant(answer: CollectedAnswer, providerId: string): void {
    this.messages.push(
      createAssistantMessage({
        runId: this.conversationId,
        step: this.#step++,
        text: answer.text,
        reasoning: answer.reasoning,
        toolCalls: answer.toolCalls,
        replay: answer.replay === undefined ? {} : { [providerId]: answer.replay },
      }),
    );
  }

  push(...messages: CanonicalMessage[]): void {
    this.messages.push(...messages);
  }

  request(model = "gpt-5.1"): ModelRequest {
    return toModelRequest({
      conversationId: this.conversationId,
      model,
      promptSpec: agentPromptSpec,
      messages: this.messages,
    });
  }
}
