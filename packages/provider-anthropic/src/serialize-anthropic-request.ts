import type { ModelRequest, SerializedRequest, Warning } from "@cursor/run";
import type {
  AnthropicBody,
  AnthropicCacheTtl,
  AnthropicMessage,
  AnthropicThinkingConfig,
} from "./anthropic-api.js";
import { applyAnthropicCacheHints } from "./anthropic-cache-hints.js";
import { prepareAnthropicTools } from "./anthropic-prepare-tools.js";
import { convertToAnthropicInput } from "./convert-to-anthropic-input.js";

export interface AnthropicSerializeSettings {
  /** `max_tokens` when the request sets no `maxOutputTokens`; the API requires one. */
  readonly maxTokens: number;
  /** TTL of the history markers; the API default (5 minutes) when absent. */
  readonly cacheTtl?: AnthropicCacheTtl;
  /** TTL of the tool and system markers; `cacheTtl` when absent. Never shorter than it. */
  readonly stablePrefixCacheTtl?: AnthropicCacheTtl;
  readonly thinking?: { readonly budgetTokens: number };
}

/**
 * With thinking on, the API wants the final assistant message of an open tool round to start
 * with a thinking block. A round from another provider, or from a call made while thinking was
 * off, has none, and signed thinking cannot be made up. Such a call goes without `thinking`
 * (valid, and the same bytes of history); the next call after the round closes has it again.
 * Returns the path of the message that forces this, or undefined.
 */
function roundWithoutThinking({
  messages,
  assistantSources,
}: {
  messages: readonly AnthropicMessage[];
  assistantSources: ReadonlyMap<number, string>;
}): string | undefined {
  const last = messages.findLastIndex((message) => message.role === "assistant");
  if (last < 0) return undefined;
  const content = messages[last]!.content;
  const opensRound = content.some((block) => block.type === "tool_use");
  const first = content[0]?.type;
  if (!opensRound || first === "thinking" || first === "redacted_thinking") return undefined;
  return assistantSources.get(last) ?? `messages[${last}]`;
}

const thinkingLeftOffMessage =
  "thinking left off for this call: the open tool round's assistant message has no Anthropic thinking block to start with (it came from another provider or from a call without thinking), and with thinking on the API refuses such a round";

/**
 * `max_tokens` and `thinking`. The API requires `budget_tokens < max_tokens`; when the output
 * limit does not leave room for the budget, the limit is read as the answer's own allowance
 * and the budget is added on top (with a warning), which is always a valid request.
 */
function outputSettings({
  request,
  options,
  thinkingOff,
}: {
  request: ModelRequest;
  options: AnthropicSerializeSettings;
  thinkingOff: boolean;
}): { maxTokens: number; thinking?: AnthropicThinkingConfig; warnings: Warning[] } {
  const maxTokens = request.maxOutputTokens ?? options.maxTokens;
  if (options.thinking === undefined || thinkingOff) return { maxTokens, warnings: [] };
  const thinking: AnthropicThinkingConfig = {
    type: "enabled",
    budget_tokens: options.thinking.budgetTokens,
  };
  if (options.thinking.budgetTokens < maxTokens) return { maxTokens, thinking, warnings: [] };
  return {
    maxTokens: maxTokens + options.thinking.budgetTokens,
    thinking,
    warnings: [
      {
        type: "other",
        message: `max_tokens ${maxTokens} does not exceed the thinking budget ${options.thinking.budgetTokens}; sent max_tokens ${maxTokens + options.thinking.budgetTokens}`,
        path: "maxOutputTokens",
      },
    ],
  };
}

/**
 * The complete wire body for one request: pure and deterministic (same request and options →
 * same bytes under `JSON.stringify`), in a fixed key order, never mutating the request.
 * Instructions are one system text block; tools, system and the newest blocks carry the cache
 * markers planned in `anthropic-cache-hints.ts`.
 */
export function serializeAnthropicRequest({
  request,
  options,
}: {
  request: ModelRequest;
  options: AnthropicSerializeSettings;
}): SerializedRequest<AnthropicBody> {
  const prepared = prepareAnthropicTools(request);
  const converted = convertToAnthropicInput(request.messages);
  const thinkingOffAt =
    options.thinking === undefined ? undefined : roundWithoutThinking(converted);
  const output = outputSettings({ request, options, thinkingOff: thinkingOffAt !== undefined });
  const marked = applyAnthropicCacheHints({
    tools: prepared.tools,
    system: [{ type: "text", text: request.instructions }],
    messages: converted.messages,
    ...(options.cacheTtl === undefined ? {} : { ttl: options.cacheTtl }),
    ...(options.stablePrefixCacheTtl === undefined
      ? {}
      : { stablePrefixTtl: options.stablePrefixCacheTtl }),
  });
  const body: AnthropicBody = {
    model: request.model,
    max_tokens: output.maxTokens,
    ...(output.thinking === undefined ? {} : { thinking: output.thinking }),
    system: marked.system,
    ...(marked.tools.length === 0 ? {} : { tools: marked.tools }),
    messages: marked.messages,
    stream: true,
  };
  const thinkingWarnings: Warning[] =
    thinkingOffAt === undefined
      ? []
      : [{ type: "other", message: thinkingLeftOffMessage, path: thinkingOffAt }];
  return {
    body,
    warnings: [
      ...output.warnings,
      ...thinkingWarnings,
      ...prepared.warnings,
      ...converted.warnings,
    ],
  };
}
