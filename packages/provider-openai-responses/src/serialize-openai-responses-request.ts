import type { ModelRequest, SerializedRequest, Warning } from "@cursor/run";
import { convertToOpenAIResponsesInput } from "./convert-to-openai-responses-input.js";
import type {
  OpenAIResponsesBody,
  OpenAIResponsesReasoningConfig,
  OpenAIResponsesReasoningEffort,
  OpenAIResponsesReasoningSummary,
} from "./openai-responses-api.js";
import type {
  OpenAIResponsesPromptCacheOptions,
  OpenAIResponsesPromptCacheRetention,
} from "./openai-responses-cache-hints.js";
import {
  assertOneCacheSetting,
  openAIResponsesPromptCacheKey,
  toOpenAIResponsesWirePromptCacheOptions,
  toOpenAIResponsesWirePromptCacheRetention,
} from "./openai-responses-cache-hints.js";
import { prepareOpenAIResponsesTools } from "./openai-responses-prepare-tools.js";

/** Adapter settings that shape the body (the same on every turn of a conversation). */
export interface OpenAIResponsesSerializeSettings {
  /** `prompt_cache_retention`, for models before GPT-5.6. Never with `promptCacheOptions`. */
  readonly promptCacheRetention?: OpenAIResponsesPromptCacheRetention;
  /** `prompt_cache_options`, for GPT-5.6 and later. Never with `promptCacheRetention`. */
  readonly promptCacheOptions?: OpenAIResponsesPromptCacheOptions;
  readonly reasoningEffort?: OpenAIResponsesReasoningEffort;
  /** Defaults to `auto` when `reasoningEffort` is set, so reasoning summaries stream. */
  readonly reasoningSummary?: OpenAIResponsesReasoningSummary;
  /**
   * Default true. Models without reasoning (gpt-4o, gpt-4.1, gpt-5-chat) refuse
   * `include: ["reasoning.encrypted_content"]` with a 400; set false for them.
   */
  readonly encryptedReasoning?: boolean;
}

function reasoningConfig(
  settings: OpenAIResponsesSerializeSettings,
): OpenAIResponsesReasoningConfig | undefined {
  if (settings.reasoningEffort === undefined) {
    return settings.reasoningSummary === undefined
      ? undefined
      : { summary: settings.reasoningSummary };
  }
  return { effort: settings.reasoningEffort, summary: settings.reasoningSummary ?? "auto" };
}

/**
 * The streaming request body for one model call. Pure: it reads the request and the settings
 * only and builds fresh objects in a fixed key order (tool schemas, already canonical and frozen
 * in the prompt spec, are shared rather than copied), so equal inputs give byte-equal
 * `JSON.stringify` output and the request is never written to.
 *
 * `store: false` keeps the API stateless (the canonical history is the only state), which is why
 * encrypted reasoning is requested and replayed instead of referring to stored items.
 */
export function serializeOpenAIResponsesRequest({
  request,
  settings,
}: {
  request: ModelRequest;
  settings: OpenAIResponsesSerializeSettings;
}): SerializedRequest<OpenAIResponsesBody> {
  assertOneCacheSetting(settings);
  const tools = prepareOpenAIResponsesTools({
    tools: request.tools,
    allowedTools: request.allowedTools,
  });
  const history = convertToOpenAIResponsesInput(request.messages);
  const reasoning = reasoningConfig(settings);
  const body: OpenAIResponsesBody = {
    model: request.model,
    instructions: request.instructions,
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolChoice === undefined ? {} : { tool_choice: tools.toolChoice }),
    input: history.input,
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(request.maxOutputTokens === undefined
      ? {}
      : { max_output_tokens: request.maxOutputTokens }),
    store: false,
    ...(settings.encryptedReasoning === false ? {} : { include: ["reasoning.encrypted_content"] }),
    stream: true,
    prompt_cache_key: openAIResponsesPromptCacheKey(request),
    ...(settings.promptCacheRetention === undefined
      ? {}
      : {
          prompt_cache_retention: toOpenAIResponsesWirePromptCacheRetention(
            settings.promptCacheRetention,
          ),
        }),
    ...(settings.promptCacheOptions === undefined
      ? {}
      : {
          prompt_cache_options: toOpenAIResponsesWirePromptCacheOptions(
            settings.promptCacheOptions,
          ),
        }),
  };
  const warnings: Warning[] = [...tools.warnings, ...history.warnings];
  return { body, warnings };
}
