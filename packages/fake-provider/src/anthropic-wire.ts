import { z } from "zod";
import { splitText } from "./fake-reply.js";
import { renderAnthropicSegments, withoutCacheControl } from "./prompt-segments.js";
import type { ReasoningSeal } from "./reasoning-seal.js";
import type {
  AnswerContext,
  AnswerPlan,
  JsonAnswer,
  JsonRecord,
  RenderedPrompt,
  SseFrame,
  WireApi,
  WireError,
} from "./wire-api.js";
import { describeIssues, namedFrames } from "./wire-api.js";

const blockSchema = z.looseObject({ type: z.string() });
const messageSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(blockSchema)]),
});
export const anthropicRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(messageSchema),
  system: z.union([z.string(), z.array(blockSchema)]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  thinking: z
    .looseObject({ type: z.string(), budget_tokens: z.number().int().min(1024).optional() })
    .optional(),
  stream: z.boolean().optional(),
});
type AnthropicMessage = z.infer<typeof messageSchema>;
/** `POST /v1/messages/count_tokens`: a Messages body without `max_tokens`. */
export const anthropicCountTokensSchema = anthropicRequestSchema.omit({ max_tokens: true });

export const anthropicMaxCacheMarkers = 4;

/** A message as a thinking signature sees it: role and content, markers removed. */
function signedView(message: AnthropicMessage): unknown {
  return {
    role: message.role,
    content:
      typeof message.content === "string"
        ? message.content
        : message.content.map(withoutCacheControl),
  };
}

const blocksOf = (message: AnthropicMessage): JsonRecord[] =>
  typeof message.content === "string" ? [] : message.content;

const isThinking = (block: JsonRecord | undefined): boolean =>
  block?.type === "thinking" || block?.type === "redacted_thinking";

/**
 * Block rules of the real API that do not depend on signatures: no empty content, no blank
 * text, no assistant message ending in thinking, and with thinking on, the final assistant
 * message of an open tool round starting with thinking.
 */
function validateBlocks(
  messages: readonly AnthropicMessage[],
  thinkingEnabled: boolean,
): WireError | undefined {
  for (const [index, message] of messages.entries()) {
    if (typeof message.content === "string") {
      if (message.content.trim() === "") {
        return {
          kind: "invalid-request",
          message: `messages.${index}: text content blocks must contain non-whitespace text`,
        };
      }
      continue;
    }
    const blocks = message.content;
    if (blocks.length === 0) {
      return {
        kind: "invalid-request",
        message: `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      };
    }
    for (const [blockIndex, block] of blocks.entries()) {
      if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === "")) {
        return {
          kind: "invalid-request",
          message: `messages.${index}.content.${blockIndex}.text: text content blocks must contain non-whitespace text`,
        };
      }
      if (isThinking(block) && message.role !== "assistant") {
        return {
          kind: "invalid-request",
          message: `messages.${index}.content.${blockIndex}: thinking blocks may only appear in assistant messages`,
        };
      }
    }
    if (message.role === "assistant" && isThinking(blocks.at(-1))) {
      return {
        kind: "invalid-request",
        message: `messages.${index}.content.${blocks.length - 1}: The final block in an assistant message cannot be \`${String(blocks.at(-1)!.type)}\`.`,
      };
    }
  }
  if (thinkingEnabled) {
    const last = messages.findLastIndex((message) => message.role === "assistant");
    const blocks = last < 0 ? [] : blocksOf(messages[last]!);
    if (blocks.some((block) => block.type === "tool_use") && !isThinking(blocks[0])) {
      return {
        kind: "invalid-request",
        message: `messages.${last}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`,
      };
    }
  }
  return undefined;
}

/** Markers with a 1-hour TTL must all come before markers with the default 5 minutes. */
function validateTtlOrder(body: JsonRecord): WireError | undefined {
  const { segments } = renderAnthropicSegments(body);
  let sawShort = false;
  for (const segment of segments) {
    if (segment.marker === undefined) continue;
    const long = (segment.marker.ttlMs ?? 0) >= 60 * 60 * 1000;
    if (long && sawShort) {
      return {
        kind: "invalid-request",
        message: `${segment.path}: a cache_control block with a 1h ttl cannot come after one with a 5m ttl`,
      };
    }
    if (!long) sawShort = true;
  }
  return undefined;
}

/** tool_use / tool_result pairing and thinking signatures, as the real API enforces them. */
function validateMessages(
  messages: readonly AnthropicMessage[],
  seal: ReasoningSeal,
): WireError | undefined {
  for (const [index, message] of messages.entries()) {
    const blocks = blocksOf(message);
    const previous = index > 0 ? messages[index - 1] : undefined;
    if (message.role === "assistant") {
      const uses = blocks
        .filter((block) => block.type === "tool_use")
        .map((block) => String(block.id));
      if (uses.length > 0) {
        const next = messages[index + 1];
        const answered = new Set(
          next === undefined
            ? []
            : blocksOf(next)
                .filter((b) => b.type === "tool_result")
                .map((b) => String(b.tool_use_id)),
        );
        const missing = uses.filter((id) => !answered.has(id));
        if (next !== undefined && missing.length > 0) {
          return {
            kind: "invalid-request",
            message: `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          };
        }
      }
      const history = messages.slice(0, index).map(signedView);
      for (const [blockIndex, block] of blocks.entries()) {
        const precedingBlocks = blocks.slice(0, blockIndex).map(withoutCacheControl);
        if (block.type === "thinking") {
          const valid =
            typeof block.signature === "string" &&
            seal.verifyThinkingSignature({
              history,
              precedingBlocks,
              thinking: String(block.thinking),
              signature: block.signature,
            });
          if (!valid) {
            return {
              kind: "invalid-request",
              message: `messages.${index}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`,
            };
          }
        }
        if (block.type === "redacted_thinking") {
          const valid =
            typeof block.data === "string" &&
            seal.verifyRedactedThinkingData({ history, precedingBlocks, data: block.data });
          if (!valid) {
            return {
              kind: "invalid-request",
              message: `messages.${index}.content.${blockIndex}: Invalid \`data\` in \`redacted_thinking\` block`,
            };
          }
        }
      }
    }
    const results = blocks.filter((block) => block.type === "tool_result");
    if (results.length > 0) {
      const uses = new Set(
        previous?.role === "assistant"
          ? blocksOf(previous)
              .filter((b) => b.type === "tool_use")
              .map((b) => String(b.id))
          : [],
      );
      const unexpected = results.map((b) => String(b.tool_use_id)).filter((id) => !uses.has(id));
      if (unexpected.length > 0) {
        return {
          kind: "invalid-request",
          message: `messages.${index}.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        };
      }
    }
  }
  return undefined;
}

function usageObject(context: AnswerContext, outputTokens: number): JsonRecord {
  const { usage } = context;
  return {
    input_tokens: usage.uncachedTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cacheWriteTokens - usage.cacheWriteTokens1h,
      ephemeral_1h_input_tokens: usage.cacheWriteTokens1h,
    },
    output_tokens: outputTokens,
    service_tier: "standard",
  };
}

/** One output block and the stream events that build it. */
interface BuiltBlock {
  readonly block: JsonRecord;
  readonly start: JsonRecord;
  readonly deltas: readonly JsonRecord[];
}

function buildBlocks(plan: AnswerPlan, context: AnswerContext): BuiltBlock[] {
  const messages = Array.isArray(context.body.messages)
    ? (context.body.messages as AnthropicMessage[])
    : [];
  const history = messages.map(signedView);
  const built: BuiltBlock[] = [];
  const preceding = () => built.map((b) => withoutCacheControl(b.block));
  for (const step of plan.reasoning) {
    if (step.redacted) {
      const data = context.seal.redactedThinkingData({
        history,
        precedingBlocks: preceding(),
        thinking: step.reasoning,
      });
      const block = { type: "redacted_thinking", data };
      built.push({ block, start: block, deltas: [] });
      continue;
    }
    const signature = context.seal.thinkingSignature({
      history,
      precedingBlocks: preceding(),
      thinking: step.reasoning,
    });
    built.push({
      block: { type: "thinking", thinking: step.reasoning, signature },
      start: { type: "thinking", thinking: "", signature: "" },
      deltas: [
        ...splitText(step.reasoning, step.chunks).map((thinking) => ({
          type: "thinking_delta",
          thinking,
        })),
        { type: "signature_delta", signature },
      ],
    });
  }
  for (const text of plan.commentary) {
    built.push({
      block: { type: "text", text },
      start: { type: "text", text: "" },
      deltas: splitText(text, 2).map((piece) => ({ type: "text_delta", text: piece })),
    });
  }
  const { answer } = plan;
  if (answer.type === "refusal" || answer.text !== "" || answer.type === "text") {
    const chunks = answer.type === "text" ? answer.chunks : 3;
    built.push({
      block: { type: "text", text: answer.text },
      start: { type: "text", text: "" },
      deltas: splitText(answer.text, chunks).map((text) => ({ type: "text_delta", text })),
    });
  }
  if (answer.type === "tool-calls") {
    for (const call of answer.calls) {
      const id = call.callId ?? context.nextId("toolu");
      built.push({
        block: { type: "tool_use", id, name: call.name, input: parseInput(call.arguments) },
        start: { type: "tool_use", id, name: call.name, input: {} },
        deltas: splitText(call.arguments, 2).map((partial_json) => ({
          type: "input_json_delta",
          partial_json,
        })),
      });
    }
  }
  return built;
}

function parseInput(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function stopReason(plan: AnswerPlan): string {
  switch (plan.answer.type) {
    case "text":
      return "end_turn";
    case "tool-calls":
      return "tool_use";
    case "refusal":
      return "refusal";
    case "length":
      return "max_tokens";
    default: {
      const exhaustive: never = plan.answer;
      throw new Error(`unknown answer ${JSON.stringify(exhaustive)}`);
    }
  }
}

function errorAnswer(error: WireError, requestId: string): JsonAnswer {
  const headers: Record<string, string> = { "request-id": requestId };
  const envelope = (status: number, type: string, message: string): JsonAnswer => ({
    status,
    headers,
    body: { type: "error", error: { type, message }, request_id: requestId },
  });
  switch (error.kind) {
    case "invalid-request":
      return envelope(400, "invalid_request_error", error.message);
    case "context-overflow":
      return envelope(
        400,
        "invalid_request_error",
        `prompt is too long: ${error.inputTokens} tokens > ${error.contextWindow} maximum`,
      );
    case "status": {
      if (error.retryAfterSeconds !== undefined) {
        headers["retry-after"] = String(error.retryAfterSeconds);
      }
      const typed = (status: number, type: string, message: string) =>
        envelope(status, error.code ?? type, error.message ?? message);
      switch (error.status) {
        case 401:
          return typed(401, "authentication_error", "invalid x-api-key");
        case 402:
          return typed(
            402,
            "billing_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
          );
        case 403:
          return typed(
            403,
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
          );
        case 404:
          return typed(404, "not_found_error", "model: not found");
        case 408:
          return typed(408, "timeout_error", "Request timed out.");
        case 413:
          return typed(
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
          );
        case 429:
          return typed(
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization.",
          );
        case 500:
          return typed(500, "api_error", "Internal server error");
        case 503:
        case 529:
          return typed(error.status, "overloaded_error", "Overloaded");
        default: {
          const exhaustive: never = error.status;
          throw new Error(`unknown status ${String(exhaustive)}`);
        }
      }
    }
    default: {
      const exhaustive: never = error;
      throw new Error(`unknown error ${JSON.stringify(exhaustive)}`);
    }
  }
}

export const anthropicWire: WireApi = {
  api: "anthropic",
  path: "/v1/messages",
  validate(body, seal) {
    const parsed = anthropicRequestSchema.safeParse(body);
    if (!parsed.success) {
      return { kind: "invalid-request", message: describeIssues(parsed.error.issues) };
    }
    const { markerCount } = renderAnthropicSegments(parsed.data);
    if (markerCount > anthropicMaxCacheMarkers) {
      return {
        kind: "invalid-request",
        message: `A maximum of ${anthropicMaxCacheMarkers} blocks with cache_control may be provided. Found ${markerCount}.`,
      };
    }
    const thinking = parsed.data.thinking;
    const thinkingEnabled = thinking?.type === "enabled";
    if (thinkingEnabled && (thinking.budget_tokens ?? 0) >= parsed.data.max_tokens) {
      return {
        kind: "invalid-request",
        message: "`max_tokens` must be greater than `thinking.budget_tokens`.",
      };
    }
    return (
      validateTtlOrder(parsed.data) ??
      validateBlocks(parsed.data.messages, thinkingEnabled) ??
      validateMessages(parsed.data.messages, seal)
    );
  },
  render(body): RenderedPrompt {
    const { segments, markerCount } = renderAnthropicSegments(body);
    return {
      mode: "anthropic",
      namespace: `model=${String(body.model)} tool_choice=${JSON.stringify(body.tool_choice ?? null)} thinking=${JSON.stringify(body.thinking ?? null)}`,
      segments,
      markerCount,
    };
  },
  isStream: (body) => body.stream === true,
  error: errorAnswer,
  rawFrames: namedFrames,
  streamFrames(plan, context): SseFrame[] {
    const id = context.nextId("msg");
    const blocks = buildBlocks(plan, context);
    const frame = (event: JsonRecord): SseFrame => ({
      event: String(event.type),
      data: JSON.stringify(event),
    });
    const frames: SseFrame[] = [
      frame({
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageObject(context, 1),
        },
      }),
      frame({ type: "ping" }),
    ];
    blocks.forEach((built, index) => {
      frames.push(frame({ type: "content_block_start", index, content_block: built.start }));
      for (const delta of built.deltas)
        frames.push(frame({ type: "content_block_delta", index, delta }));
      frames.push(frame({ type: "content_block_stop", index }));
    });
    const {
      cache_creation: _cacheCreation,
      service_tier: _serviceTier,
      ...finalUsage
    } = usageObject(context, context.usage.outputTokens);
    frames.push(
      frame({
        type: "message_delta",
        delta: { stop_reason: stopReason(plan), stop_sequence: null },
        usage: finalUsage,
      }),
    );
    frames.push(frame({ type: "message_stop" }));
    return frames;
  },
  json(plan, context) {
    const id = context.nextId("msg");
    return {
      id,
      type: "message",
      role: "assistant",
      model: context.model,
      content: buildBlocks(plan, context).map((built) => built.block),
      stop_reason: stopReason(plan),
      stop_sequence: null,
      usage: usageObject(context, context.usage.outputTokens),
    };
  },
};
