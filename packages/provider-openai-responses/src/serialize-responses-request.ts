import type { ModelRequest, SerializedRequest, Warning } from "@cursor/run";
import { convertToResponsesInput } from "./convert-to-responses-input.js";
import type {
  ResponsesBody,
  ResponsesReasoningConfig,
  ResponsesReasoningEffort,
  ResponsesReasoningSummary,
} from "./responses-api.js";
import type { PromptCacheOptions, PromptCacheRetention } from "./responses-cache-hints.js";
import {
  assertOneCacheSetting,
  responsesPromptCacheKey,
  responsesPromptCacheOptions,
  responsesPromptCacheRetention,
} from "./responses-cache-hints.js";
import { prepareResponsesTools } from "./responses-prepare-tools.js";

/** Adapter settings that shape the body (the same on every turn of a conversation). */
export interface ResponsesSerializeSettings {
  /** `prompt_cache_retention`, for models before GPT-5.6. Never with `promptCacheOptions`. */
  readonly promptCacheRetention?: PromptCacheRetention;
  /** `prompt_cache_options`, for GPT-5.6 and later. Never with `promptCacheRetention`. */
  readonly promptCacheOptions?: PromptCacheOptions;
  readonly reasoningEffort?: ResponsesReasoningEffort;
  /** Defaults to `auto` when `reasoningEffort` is set, so reasoning summaries stream. */
  readonly reasoningSummary?: ResponsesReasoningSummary;
  /**
   * Default true. Models without reasoning (gpt-4o, gpt-4.1, gpt-5-chat) refuse
   * `include: ["reasoning.encrypted_content"]` with a 400; set false for them.
   */
  readonly encryptedReasoning?: boolean;
}

function reasoningConfig(
  settings: ResponsesSerializeSettings,
): ResponsesReasoningConfig | undefined {
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
export function serializeResponsesRequest({
  request,
  settings,
}: {
  request: ModelRequest;
  settings: ResponsesSerializeSettings;
}): SerializedRequest<ResponsesBody> {
  assertOneCacheSetting(settings);
  const tools = prepareResponsesTools({ tools: request.tools, allowedTools: request.allowedTools });
  const history = convertToResponsesInput(request.messages);
  const reasoning = reasoningConfig(settings);
  const body: ResponsesBody = {
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
    prompt_cache_key: responsesPromptCacheKey(request),
    ...(settings.promptCacheRetention === undefined
      ? {}
      : { prompt_cache_retention: responsesPromptCacheRetention(settings.promptCacheRetention) }),
    ...(settings.promptCacheOptions === undefined
      ? {}
      : { prompt_cache_options: responsesPromptCacheOptions(settings.promptCacheOptions) }),
  };
  const warnings: Warning[] = [...tools.warnings, ...history.warnings];
  return { body, warnings };
}
