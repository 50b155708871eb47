import type { z } from "zod";
import { NetworkError, ProviderServerError, RefusalError } from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import {
  anthropicStreamEventSchema,
  contentBlockDeltaEventSchema,
  contentBlockStartEventSchema,
  contentBlockStopEventSchema,
  inputJsonDeltaSchema,
  messageDeltaEventSchema,
  messageStartEventSchema,
  redactedThinkingBlockStartSchema,
  signatureDeltaSchema,
  textBlockStartSchema,
  textDeltaSchema,
  thinkingBlockStartSchema,
  thinkingDeltaSchema,
  toolUseBlockStartSchema,
} from "./anthropic-api.js";
import type { AnthropicUsage } from "./anthropic-api.js";
import { anthropicProviderId, toAnthropicReplayState } from "./anthropic-replay-state.js";
import type { AnthropicReplayBlock } from "./anthropic-replay-state.js";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert-anthropic-usage.js";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.js";

type OpenBlock =
  | { kind: "text" }
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted-thinking"; data: string }
  | { kind: "tool-use"; toolIndex: number; id: string; name: string; json: string; input: unknown }
  /** Block kinds this package does not use (server tools, …): read past, not reported. */
  | { kind: "ignored" };

function parseEvent<Schema extends z.ZodType>(schema: Schema, event: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(event);
  if (!parsed.success) {
    throw new ProviderServerError({
      message: `malformed anthropic stream event: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
      providerId: anthropicProviderId,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function malformed(message: string): ProviderServerError {
  return new ProviderServerError({
    message: `malformed anthropic stream: ${message}`,
    providerId: anthropicProviderId,
  });
}

/**
 * The arguments of a finished tool_use block: the exact JSON text streamed in
 * `input_json_delta`s; a block with no deltas carries its input whole in the start event, and
 * a call without input is `{}`.
 */
function toolArguments(block: Extract<OpenBlock, { kind: "tool-use" }>): string {
  if (block.json.length > 0) return block.json;
  if (block.input !== null && typeof block.input === "object") return JSON.stringify(block.input);
  return "{}";
}

function openBlock(contentBlock: { type: string }, nextToolIndex: number): OpenBlock {
  switch (contentBlock.type) {
    case "text":
      parseEvent(textBlockStartSchema, contentBlock);
      return { kind: "text" };
    case "thinking": {
      const block = parseEvent(thinkingBlockStartSchema, contentBlock);
      return { kind: "thinking", thinking: block.thinking, signature: block.signature ?? "" };
    }
    case "redacted_thinking":
      return {
        kind: "redacted-thinking",
        data: parseEvent(redactedThinkingBlockStartSchema, contentBlock).data,
      };
    case "tool_use": {
      const block = parseEvent(toolUseBlockStartSchema, contentBlock);
      return {
        kind: "tool-use",
        toolIndex: nextToolIndex,
        id: block.id,
        name: block.name,
        json: "",
        input: block.input,
      };
    }
    default:
      return { kind: "ignored" };
  }
}

/**
 * Normalises the raw Messages API stream events of one response into `ProviderEvent`s:
 * text and reasoning deltas as they arrive, one `tool-call` per tool_use block when it closes
 * (index = its position among this message's calls), and at `message_stop` one `replay` event
 * (the thinking / redacted thinking blocks with signatures, in stream order; omitted when there
 * are none), one `usage` event and the `finish`. A `refusal` stop reason throws `RefusalError`
 * after the usage event. A stream that ends before `message_stop` was cut: `NetworkError`.
 */
export async function* convertAnthropicStream(
  events: AsyncIterable<unknown>,
): AsyncGenerator<ProviderEvent> {
  const blocks = new Map<number, OpenBlock>();
  const replayBlocks: AnthropicReplayBlock[] = [];
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let toolCount = 0;

  for await (const raw of events) {
    const event = parseEvent(anthropicStreamEventSchema, raw);
    switch (event.type) {
      case "message_start":
        usage = mergeAnthropicUsage(usage, parseEvent(messageStartEventSchema, raw).message.usage);
        break;
      case "content_block_start": {
        const start = parseEvent(contentBlockStartEventSchema, raw);
        const block = openBlock(start.content_block, toolCount);
        if (block.kind === "tool-use") toolCount += 1;
        blocks.set(start.index, block);
        // A block may arrive whole in its start event rather than as deltas.
        if (block.kind === "thinking" && block.thinking.length > 0) {
          yield { type: "reasoning-delta", text: block.thinking };
        }
        const text = start.content_block["text"];
        if (block.kind === "text" && typeof text === "string" && text.length > 0) {
          yield { type: "text-delta", text };
        }
        break;
      }
      case "content_block_delta": {
        const { index, delta } = parseEvent(contentBlockDeltaEventSchema, raw);
        const block = blocks.get(index);
        if (block === undefined) throw malformed(`delta for unopened block ${index}`);
        if (delta.type === "text_delta" && block.kind === "text") {
          const { text } = parseEvent(textDeltaSchema, delta);
          if (text.length > 0) yield { type: "text-delta", text };
        } else if (delta.type === "thinking_delta" && block.kind === "thinking") {
          const { thinking } = parseEvent(thinkingDeltaSchema, delta);
          block.thinking += thinking;
          if (thinking.length > 0) yield { type: "reasoning-delta", text: thinking };
        } else if (delta.type === "signature_delta" && block.kind === "thinking") {
          block.signature += parseEvent(signatureDeltaSchema, delta).signature;
        } else if (delta.type === "input_json_delta" && block.kind === "tool-use") {
          block.json += parseEvent(inputJsonDeltaSchema, delta).partial_json;
        }
        // Other deltas (citations, deltas of ignored blocks) carry nothing we report.
        break;
      }
      case "content_block_stop": {
        const { index } = parseEvent(contentBlockStopEventSchema, raw);
        const block = blocks.get(index);
        if (block === undefined) throw malformed(`stop for unopened block ${index}`);
        blocks.delete(index);
        if (block.kind === "thinking") {
          replayBlocks.push({
            type: "thinking",
            thinking: block.thinking,
            signature: block.signature,
          });
        } else if (block.kind === "redacted-thinking") {
          replayBlocks.push({ type: "redacted_thinking", data: block.data });
        } else if (block.kind === "tool-use") {
          yield {
            type: "tool-call",
            index: block.toolIndex,
            callId: block.id,
            name: block.name,
            arguments: toolArguments(block),
          };
        }
        break;
      }
      case "message_delta": {
        const messageDelta = parseEvent(messageDeltaEventSchema, raw);
        stopReason = messageDelta.delta.stop_reason ?? stopReason;
        usage = mergeAnthropicUsage(usage, messageDelta.usage);
        break;
      }
      case "message_stop": {
        if (replayBlocks.length > 0) {
          yield { type: "replay", state: toAnthropicReplayState(replayBlocks) };
        }
        yield { type: "usage", usage: convertAnthropicUsage(usage) };
        const reason = mapAnthropicFinishReason(stopReason);
        if (reason === "refusal") {
          throw new RefusalError({
            message: "the model refused to answer (stop_reason: refusal)",
            providerId: anthropicProviderId,
          });
        }
        yield { type: "finish", reason };
        return;
      }
      default:
        // `ping` and event types newer than this package.
        break;
    }
  }
  throw new NetworkError({
    message: "the anthropic stream ended before message_stop",
    providerId: anthropicProviderId,
  });
}
