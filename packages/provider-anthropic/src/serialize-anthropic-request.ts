import type { ModelRequest, SerializedRequest, Warning } from "@cursor/run";
import type { AnthropicBody, AnthropicCacheTtl, AnthropicThinkingConfig } from "./anthropic-api.js";
import { applyAnthropicCacheHints } from "./anthropic-cache-hints.js";
import { prepareAnthropicTools } from "./anthropic-prepare-tools.js";
import { convertToAnthropicMessages } from "./convert-to-anthropic-messages.js";

export interface AnthropicSerializeOptions {
  /** `max_tokens` when the request sets no `maxOutputTokens`; the API requires one. */
  readonly maxTokens: number;
  readonly cacheTtl?: AnthropicCacheTtl;
  readonly thinking?: { readonly budgetTokens: number };
}

/**
 * `max_tokens` and `thinking`. The API requires `budget_tokens < max_tokens`; when the output
 * limit does not leave room for the budget, the limit is read as the answer's own allowance
 * and the budget is added on top (with a warning), which is always a valid request.
 */
function outputSettings({
  request,
  options,
}: {
  request: ModelRequest;
  options: AnthropicSerializeOptions;
}): { maxTokens: number; thinking?: AnthropicThinkingConfig; warnings: Warning[] } {
  const maxTokens = request.maxOutputTokens ?? options.maxTokens;
  if (options.thinking === undefined) return { maxTokens, warnings: [] };
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
  options: AnthropicSerializeOptions;
}): SerializedRequest<AnthropicBody> {
  const output = outputSettings({ request, options });
  const prepared = prepareAnthropicTools(request);
  const converted = convertToAnthropicMessages(request.messages);
  const marked = applyAnthropicCacheHints({
    tools: prepared.tools,
    system: [{ type: "text", text: request.instructions }],
    messages: converted.messages,
    ...(options.cacheTtl === undefined ? {} : { ttl: options.cacheTtl }),
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
  return { body, warnings: [...output.warnings, ...prepared.warnings, ...converted.warnings] };
}
