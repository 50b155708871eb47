import { z } from "zod";
import { splitText } from "./fake-reply.js";
import { openaiErrorAnswer } from "./openai-error.js";
import { renderOpenAIResponsesSegments } from "./prompt-segments.js";
import type { ReasoningSeal } from "./reasoning-seal.js";
import type {
  AnswerContext,
  AnswerPlan,
  JsonRecord,
  RenderedPrompt,
  SseFrame,
  WireApi,
  WireError,
} from "./wire-api.js";
import { describeIssues, namedFrames } from "./wire-api.js";
import { openAICacheSettings } from "./openai-cache-settings.js";

// Tolerant of every field the real API accepts; only what the fake relies on is checked.
const inputItemSchema = z.looseObject({ type: z.string().optional() });
export const openaiResponsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  stream: z.boolean().nullable().optional(),
  store: z.boolean().nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  prompt_cache_retention: z.string().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
});

const finalStatus = (plan: AnswerPlan): "completed" | "incomplete" =>
  plan.answer.type === "length" ? "incomplete" : "completed";

/** Replay rules of the real API for stateless (`store: false`) conversations. */
function validateInputItems(
  items: readonly JsonRecord[],
  seal: ReasoningSeal,
): WireError | undefined {
  const callIds = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (item.type === "reasoning") {
      const encrypted = item.encrypted_content;
      if (typeof encrypted === "string" && !seal.verifyEncryptedReasoning(encrypted)) {
        return {
          kind: "invalid-request",
          message: `The encrypted content for item ${String(item.id)} could not be verified.`,
          param: `input[${index}].encrypted_content`,
        };
      }
      const next = items[index + 1];
      const follows =
        next !== undefined &&
        (next.type === "function_call" ||
          next.type === "reasoning" ||
          (next.type === "message" && next.role === "assistant") ||
          (next.type === undefined && next.role === "assistant"));
      if (!follows) {
        return {
          kind: "invalid-request",
          message: `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`,
          param: `input[${index}]`,
        };
      }
    }
    if (item.type === "function_call" && typeof item.call_id === "string")
      callIds.add(item.call_id);
    if (item.type === "function_call_output" && !callIds.has(String(item.call_id))) {
      return {
        kind: "invalid-request",
        message: `No tool call found for function call output with call_id ${String(item.call_id)}.`,
        param: `input[${index}]`,
      };
    }
  }
  return undefined;
}

function responseObject({
  context,
  status,
  output,
}: {
  context: AnswerContext & { responseId: string };
  status: "in_progress" | "completed" | "incomplete";
  output: unknown[];
}): JsonRecord {
  const { body, usage } = context;
  const completed = status !== "in_progress";
  return {
    id: context.responseId,
    object: "response",
    created_at: context.createdAtSeconds,
    status,
    background: false,
    completed_at: completed ? context.createdAtSeconds : null,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: context.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: completed
      ? {
          input_tokens: usage.inputTokens,
          input_tokens_details: {
            cached_tokens: usage.cachedTokens,
            ...(context.reportsCacheWrites ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
          },
          output_tokens: usage.outputTokens,
          output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
          total_tokens: usage.inputTokens + usage.outputTokens,
        }
      : null,
  };
}

/** Items and the events that build them, in output order. */
function buildOutput(
  plan: AnswerPlan,
  context: AnswerContext,
): { items: JsonRecord[]; events: JsonRecord[] } {
  const items: JsonRecord[] = [];
  const events: JsonRecord[] = [];
  for (const step of plan.reasoning) {
    const output_index = items.length;
    const id = context.nextId("rs");
    const summary = step.redacted ? [] : [{ type: "summary_text", text: step.reasoning }];
    const done = {
      id,
      type: "reasoning",
      summary,
      encrypted_content: context.seal.encryptedReasoning(step.reasoning),
    };
    events.push({
      type: "response.output_item.added",
      output_index,
      item: { id, type: "reasoning", summary: [] },
    });
    if (!step.redacted) {
      const part = { type: "summary_text", text: "" };
      const common = { item_id: id, output_index, summary_index: 0 };
      events.push({ type: "response.reasoning_summary_part.added", ...common, part });
      for (const delta of splitText(step.reasoning, step.chunks)) {
        events.push({ type: "response.reasoning_summary_text.delta", ...common, delta });
      }
      events.push({
        type: "response.reasoning_summary_text.done",
        ...common,
        text: step.reasoning,
      });
      events.push({
        type: "response.reasoning_summary_part.done",
        ...common,
        part: { type: "summary_text", text: step.reasoning },
      });
    }
    events.push({ type: "response.output_item.done", output_index, item: done });
    items.push(done);
  }
  const pushMessage = (input: {
    text: string;
    refusal: boolean;
    phase: string | undefined;
    chunks: number;
  }) => {
    const { text, refusal, phase } = input;
    const output_index = items.length;
    const id = context.nextId("msg");
    const emptyPart = refusal
      ? { type: "refusal", refusal: "" }
      : { type: "output_text", annotations: [], logprobs: [], text: "" };
    const fullPart = refusal
      ? { type: "refusal", refusal: text }
      : { type: "output_text", annotations: [], logprobs: [], text };
    const common = { item_id: id, output_index, content_index: 0 };
    const phaseField = phase === undefined ? {} : { phase };
    events.push({
      type: "response.output_item.added",
      output_index,
      item: {
        id,
        type: "message",
        status: "in_progress",
        content: [],
        role: "assistant",
        ...phaseField,
      },
    });
    events.push({ type: "response.content_part.added", ...common, part: emptyPart });
    for (const delta of splitText(text, input.chunks)) {
      events.push(
        refusal
          ? { type: "response.refusal.delta", ...common, delta }
          : { type: "response.output_text.delta", ...common, delta, logprobs: [] },
      );
    }
    events.push(
      refusal
        ? { type: "response.refusal.done", ...common, refusal: text }
        : { type: "response.output_text.done", ...common, text, logprobs: [] },
    );
    events.push({ type: "response.content_part.done", ...common, part: fullPart });
    const item = {
      id,
      type: "message",
      status: "completed",
      content: [fullPart],
      role: "assistant",
      ...phaseField,
    };
    events.push({ type: "response.output_item.done", output_index, item });
    items.push(item);
  };
  for (const text of plan.commentary) {
    pushMessage({ text, refusal: false, phase: "commentary", chunks: 2 });
  }
  const { answer } = plan;
  const text = answer.text;
  if (answer.type === "refusal" || text !== "") {
    pushMessage({
      text,
      refusal: answer.type === "refusal",
      phase: answer.type === "text" || answer.type === "tool-calls" ? answer.phase : undefined,
      chunks: answer.type === "text" ? answer.chunks : 3,
    });
  }
  if (answer.type === "tool-calls") {
    for (const call of answer.calls) {
      const output_index = items.length;
      const id = context.nextId("fc");
      const callId = call.callId ?? context.nextId("call");
      const common = { item_id: id, output_index };
      events.push({
        type: "response.output_item.added",
        output_index,
        item: {
          id,
          type: "function_call",
          status: "in_progress",
          arguments: "",
          call_id: callId,
          name: call.name,
        },
      });
      for (const delta of splitText(call.arguments, 2)) {
        events.push({ type: "response.function_call_arguments.delta", ...common, delta });
      }
      events.push({
        type: "response.function_call_arguments.done",
        ...common,
        name: call.name,
        arguments: call.arguments,
      });
      const item = {
        id,
        type: "function_call",
        status: "completed",
        arguments: call.arguments,
        call_id: callId,
        name: call.name,
      };
      events.push({ type: "response.output_item.done", output_index, item });
      items.push(item);
    }
  }
  return { items, events };
}

export const openaiResponsesWire: WireApi = {
  api: "openai-responses",
  path: "/v1/responses",
  validate(body, seal) {
    const parsed = openaiResponsesRequestSchema.safeParse(body);
    if (!parsed.success) {
      return { kind: "invalid-request", message: describeIssues(parsed.error.issues) };
    }
    const input = parsed.data.input;
    return Array.isArray(input) ? validateInputItems(input, seal) : undefined;
  },
  render(body): RenderedPrompt {
    const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
    return {
      mode: "openai",
      namespace: `model=${String(body.model)} prompt_cache_key=${key}`,
      segments: renderOpenAIResponsesSegments(body),
      ...openAICacheSettings(body),
    };
  },
  isStream: (body) => body.stream === true,
  error: (error, requestId) => openaiErrorAnswer({ error, requestId, historyParam: "input" }),
  rawFrames: namedFrames,
  streamFrames(plan, baseContext): SseFrame[] {
    const context = { ...baseContext, responseId: baseContext.nextId("resp") };
    const { items, events } = buildOutput(plan, context);
    const finalType =
      finalStatus(plan) === "incomplete" ? "response.incomplete" : "response.completed";
    const all: JsonRecord[] = [
      {
        type: "response.created",
        response: responseObject({ context, status: "in_progress", output: [] }),
      },
      {
        type: "response.in_progress",
        response: responseObject({ context, status: "in_progress", output: [] }),
      },
      ...events,
      {
        type: finalType,
        response: responseObject({ context, status: finalStatus(plan), output: items }),
      },
    ];
    return all.map((event, sequence_number) => ({
      event: String(event.type),
      data: JSON.stringify({ ...event, sequence_number }),
    }));
  },
  json(plan, baseContext) {
    const context = { ...baseContext, responseId: baseContext.nextId("resp") };
    const { items } = buildOutput(plan, context);
    return responseObject({ context, status: finalStatus(plan), output: items });
  },
};
