import type { ProviderEvent } from "@cursor/run";
import { NetworkError, ProviderServerError, RefusalError, sha256Hex } from "@cursor/run";
import type {
  OpenAIChatChunk,
  OpenAIChatToolCallDelta,
  OpenAIChatUsage,
} from "./openai-chat-api.js";
import { openAIChatChunkSchema } from "./openai-chat-api.js";
import { convertOpenAIChatUsage } from "./convert-openai-chat-usage.js";
import { mapOpenAIChatFinishReason } from "./map-openai-chat-finish-reason.js";
import { readOpenAIChatDelta } from "./read-openai-chat-delta.js";

interface PendingToolCall {
  wireIndex: number;
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Normalises a Chat completion chunk stream into provider events. Text and reasoning deltas are
 * passed on as they arrive, in whichever shape the server sends them (`readOpenAIChatDelta`;
 * a shape it does not know is a `warning` event, once per kind); tool calls are assembled from their indexed deltas and yielded once
 * the stream has ended, with the exact concatenated argument text; then the replay state (the
 * `reasoning_content`, when there was any), the usage of the final chunk and the finish reason.
 *
 * A stream that ends without a `finish_reason` was cut off (the SDK ends quietly when the body
 * ends early), so it throws `NetworkError`. A refusal throws `RefusalError` with the refusal
 * text: the canonical history has no refusal message, and retrying would not help.
 */
export async function* convertOpenAIChatStream({
  chunks,
  providerId,
}: {
  chunks: AsyncIterable<unknown>;
  providerId: string;
}): AsyncGenerator<ProviderEvent> {
  const toolCalls = new Map<number, PendingToolCall>();
  let reasoningContent = "";
  let refusal = "";
  let finishReason: string | undefined;
  let usage: OpenAIChatUsage | undefined;
  let responseId: string | undefined;
  const warned = new Set<string>();

  for await (const raw of chunks) {
    const chunk = parseChunk(raw, providerId);
    responseId ??= chunk.id ?? undefined;
    if (chunk.usage != null) usage = chunk.usage;
    // One choice is requested (no `n`); other indexes never occur, and are ignored if they do.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) continue;
    const delta = choice.delta;
    if (delta != null) {
      const read = readOpenAIChatDelta({ delta, path: "choices[0].delta" });
      for (const warning of read.warnings) {
        // Once per kind: a server that always sends an odd shape would flood the client.
        const key = `${warning.path ?? ""}\u0000${warning.message}`;
        if (warned.has(key)) continue;
        warned.add(key);
        yield { type: "warning", warning };
      }
      if (read.reasoning !== "") {
        reasoningContent += read.reasoning;
        yield { type: "reasoning-delta", text: read.reasoning };
      }
      if (read.text !== "") yield { type: "text-delta", text: read.text };
    }
    if (delta?.refusal != null) refusal += delta.refusal;
    for (const toolCallDelta of delta?.tool_calls ?? []) {
      accumulateToolCall(toolCalls, toolCallDelta);
    }
    if (choice.finish_reason != null) finishReason = choice.finish_reason;
  }

  if (refusal !== "") {
    throw new RefusalError({ providerId, message: `the model refused: ${refusal}` });
  }
  if (finishReason === undefined) {
    throw new NetworkError({
      providerId,
      message: "the provider stream ended before a finish reason (connection cut mid-answer)",
    });
  }
  const ordered = [...toolCalls.values()].sort((a, b) => a.wireIndex - b.wireIndex);
  // Call ids must be unique in a conversation; a server that sends none still gets distinct
  // ids, derived from its response id (or a random seed when that is missing too).
  const idSeed = ordered.some((call) => call.id === undefined)
    ? (responseId ?? crypto.randomUUID())
    : "";
  for (const [index, call] of ordered.entries()) {
    yield {
      type: "tool-call",
      index,
      callId: call.id ?? `call_${sha256Hex(`${idSeed}:${call.wireIndex}`).slice(0, 24)}`,
      name: call.name,
      arguments: call.arguments,
    };
  }
  if (reasoningContent !== "") {
    yield { type: "replay", state: { reasoningContent } };
  }
  yield { type: "usage", usage: convertOpenAIChatUsage(usage) };
  yield { type: "finish", reason: mapOpenAIChatFinishReason(finishReason) };
}

function parseChunk(raw: unknown, providerId: string): OpenAIChatChunk {
  const parsed = openAIChatChunkSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ProviderServerError({
    providerId,
    message: `malformed chat completion chunk: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    cause: parsed.error,
  });
}

/**
 * OpenAI sends `index`, `id` and `name` on a call's first delta and argument pieces after it.
 * Some compatible servers omit `index`: then a delta with a new id starts a new call and any
 * other delta continues the latest one. Id and name are taken once (servers that repeat them on
 * every delta must not get them doubled); arguments are concatenated as sent.
 */
function accumulateToolCall(
  calls: Map<number, PendingToolCall>,
  delta: OpenAIChatToolCallDelta,
): void {
  const latest = [...calls.values()].at(-1);
  let wireIndex = delta.index ?? undefined;
  if (wireIndex === undefined) {
    const startsNew = latest === undefined || (delta.id != null && delta.id !== latest.id);
    wireIndex = startsNew ? (latest === undefined ? 0 : latest.wireIndex + 1) : latest.wireIndex;
  }
  let call = calls.get(wireIndex);
  if (call === undefined) {
    call = { wireIndex, id: undefined, name: "", arguments: "" };
    calls.set(wireIndex, call);
  }
  if (call.id === undefined && delta.id != null && delta.id !== "") call.id = delta.id;
  if (call.name === "" && delta.function?.name != null) call.name = delta.function.name;
  call.arguments += delta.function?.arguments ?? "";
}
