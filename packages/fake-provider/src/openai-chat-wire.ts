import { z } from "zod";
import { splitText } from "./fake-reply.js";
import { openaiErrorAnswer } from "./openai-error.js";
import { renderOpenAIChatSegments } from "./prompt-segments.js";
import type {
  AnswerContext,
  AnswerPlan,
  JsonRecord,
  RenderedPrompt,
  SseFrame,
  WireApi,
  WireError,
} from "./wire-api.js";
import { describeIssues } from "./wire-api.js";
import { openAICacheSettings } from "./openai-cache-settings.js";

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  tool_calls: z.array(toolCallSchema).nullable().optional(),
  tool_call_id: z.string().optional(),
});
export const openaiChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  prompt_cache_retention: z.string().nullable().optional(),
});
type ChatMessage = z.infer<typeof messageSchema>;

/** The real API's tool-round rules: every call answered right after it, no orphan results. */
function validateToolRounds(messages: readonly ChatMessage[]): WireError | undefined {
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (!open.delete(String(message.tool_call_id))) {
        return {
          kind: "invalid-request",
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${index}].role`,
        };
      }
      continue;
    }
    if (open.size > 0) {
      return {
        kind: "invalid-request",
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
        param: "messages",
      };
    }
    open = new Set(
      (message.role === "assistant" ? (message.tool_calls ?? []) : []).map((c) => c.id),
    );
  }
  if (open.size > 0) {
    return {
      kind: "invalid-request",
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
      param: "messages",
    };
  }
  return undefined;
}

function usageObject(context: AnswerContext): JsonRecord {
  const { usage } = context;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens,
      audio_tokens: 0,
      ...(context.reportsCacheWrites ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

interface ChatCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

function callsOf(plan: AnswerPlan, context: AnswerContext): ChatCall[] {
  if (plan.answer.type !== "tool-calls") return [];
  return plan.answer.calls.map((call) => ({
    id: call.callId ?? context.nextId("call"),
    name: call.name,
    arguments: call.arguments,
  }));
}

const finishReason = (plan: AnswerPlan): string => {
  switch (plan.answer.type) {
    case "tool-calls":
      return "tool_calls";
    case "length":
      return "length";
    case "text":
    case "refusal":
      return "stop";
    default: {
      const exhaustive: never = plan.answer;
      throw new Error(`unknown answer ${JSON.stringify(exhaustive)}`);
    }
  }
};

/** Commentary and the answer's text as one `content` (Chat has one text per message). */
const contentText = (plan: AnswerPlan): string =>
  [...plan.commentary, plan.answer.text].filter((text) => text !== "").join("\n\n");

export const openaiChatWire: WireApi = {
  api: "openai-chat",
  path: "/v1/chat/completions",
  validate(body) {
    const parsed = openaiChatRequestSchema.safeParse(body);
    if (!parsed.success) {
      return { kind: "invalid-request", message: describeIssues(parsed.error.issues) };
    }
    return validateToolRounds(parsed.data.messages);
  },
  render(body): RenderedPrompt {
    const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
    return {
      mode: "openai",
      namespace: `model=${String(body.model)} prompt_cache_key=${key}`,
      segments: renderOpenAIChatSegments(body),
      ...openAICacheSettings(body),
    };
  },
  isStream: (body) => body.stream === true,
  error: (error, requestId) => openaiErrorAnswer({ error, requestId, historyParam: "messages" }),
  rawFrames: (events) => [
    ...events.map((event) => ({ data: JSON.stringify(event) })),
    { data: "[DONE]" },
  ],
  streamFrames(plan, context): SseFrame[] {
    const id = context.nextId("chatcmpl");
    const options = context.body.stream_options;
    const includeUsage =
      typeof options === "object" && options !== null && "include_usage" in options
        ? options.include_usage === true
        : false;
    const chunk = (choices: unknown[], usage?: unknown): SseFrame => ({
      data: JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: context.createdAtSeconds,
        model: context.model,
        service_tier: "default",
        system_fingerprint: "fp_cursor_testkit",
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      }),
    });
    const delta = (value: JsonRecord, finish: string | null = null) =>
      chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);
    const frames: SseFrame[] = [delta({ role: "assistant", content: "", refusal: null })];
    const { answer } = plan;
    if (answer.type === "refusal") {
      for (const piece of splitText(answer.text, 3)) frames.push(delta({ refusal: piece }));
    } else if (contentText(plan) !== "") {
      const chunks = answer.type === "text" ? answer.chunks : 3;
      for (const piece of splitText(contentText(plan), chunks)) {
        frames.push(delta({ content: piece }));
      }
    }
    callsOf(plan, context).forEach((call, index) => {
      frames.push(
        delta({
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
      );
      for (const piece of splitText(call.arguments, 2)) {
        frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    frames.push(delta({}, finishReason(plan)));
    if (includeUsage) frames.push(chunk([], usageObject(context)));
    frames.push({ data: "[DONE]" });
    return frames;
  },
  json(plan, context) {
    const id = context.nextId("chatcmpl");
    const { answer } = plan;
    const calls = callsOf(plan, context);
    const message: JsonRecord = {
      role: "assistant",
      content:
        answer.type === "refusal" || (answer.type === "tool-calls" && contentText(plan) === "")
          ? null
          : contentText(plan),
      refusal: answer.type === "refusal" ? answer.text : null,
      annotations: [],
      ...(calls.length === 0
        ? {}
        : {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
    };
    return {
      id,
      object: "chat.completion",
      created: context.createdAtSeconds,
      model: context.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(plan) }],
      usage: usageObject(context),
      service_tier: "default",
      system_fingerprint: "fp_cursor_testkit",
    };
  },
};
