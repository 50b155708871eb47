import type { ModelRequest, SerializedRequest } from "@cursor/run";
import type { OpenAIChatBody } from "./openai-chat-api.js";
import type {
  OpenAIChatPromptCacheOptions,
  OpenAIChatPromptCacheRetention,
} from "./openai-chat-cache-hints.js";
import {
  assertOneChatCacheSetting,
  openAIChatPromptCacheKey,
  toChatPromptCacheOptions,
  toChatPromptCacheRetention,
} from "./openai-chat-cache-hints.js";
import type { OpenAIChatSystemRole } from "./convert-to-openai-chat-input.js";
import { convertToOpenAIChatInput } from "./convert-to-openai-chat-input.js";
import { prepareOpenAIChatTools } from "./openai-chat-prepare-tools.js";

/** The adapter options that shape the body (transport options live in the adapter). */
export interface OpenAIChatSerializeSettings {
  readonly systemRole: OpenAIChatSystemRole;
  readonly replayReasoningContent: boolean;
  /** `prompt_cache_retention` (models before GPT-5.6). Never with `promptCacheOptions`. */
  readonly promptCacheRetention?: OpenAIChatPromptCacheRetention | undefined;
  /** `prompt_cache_options` (GPT-5.6 and later). Never with `promptCacheRetention`. */
  readonly promptCacheOptions?: OpenAIChatPromptCacheOptions | undefined;
}

/**
 * The streaming request body for one model call. Pure: the same request and settings give the
 * same bytes (keys are always written in this order, optional keys only when set), and the
 * frozen request is only read. The body shares the request's immutable tool schemas instead of
 * copying them.
 */
export function serializeOpenAIChatRequest({
  request,
  settings,
}: {
  request: ModelRequest;
  settings: OpenAIChatSerializeSettings;
}): SerializedRequest<OpenAIChatBody> {
  assertOneChatCacheSetting(settings);
  const input = convertToOpenAIChatInput({
    instructions: request.instructions,
    messages: request.messages,
    systemRole: settings.systemRole,
    replayReasoningContent: settings.replayReasoningContent,
  });
  const tools = prepareOpenAIChatTools({
    tools: request.tools,
    allowedTools: request.allowedTools,
  });
  const body: OpenAIChatBody = {
    model: request.model,
    messages: input.messages,
    ...(tools.tools === undefined ? {} : { tools: tools.tools }),
    ...(tools.toolChoice === undefined ? {} : { tool_choice: tools.toolChoice }),
    ...(request.maxOutputTokens === undefined
      ? {}
      : { max_completion_tokens: request.maxOutputTokens }),
    prompt_cache_key: openAIChatPromptCacheKey(request),
    ...(settings.promptCacheRetention === undefined
      ? {}
      : { prompt_cache_retention: toChatPromptCacheRetention(settings.promptCacheRetention) }),
    ...(settings.promptCacheOptions === undefined
      ? {}
      : { prompt_cache_options: toChatPromptCacheOptions(settings.promptCacheOptions) }),
    stream: true,
    stream_options: { include_usage: true },
  };
  return { body, warnings: [...tools.warnings, ...input.warnings] };
}
