/**
 * `@cursor/provider-anthropic/internal`: the pieces the adapter is built from (serialiser,
 * converters, cache-marker planning, stream conversion, error classification, replay state, wire
 * types), for this repository's tests, benchmarks and tools. Not a stable API: it may change in
 * any release. Applications use the root entry (`createAnthropicAdapter`).
 */
export { anthropicImageMediaTypes } from "./anthropic-api.js";
export type {
  AnthropicAssistantBlock,
  AnthropicAssistantMessage,
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicMessage,
  AnthropicRedactedThinkingBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicThinkingConfig,
  AnthropicTool,
  AnthropicToolInputSchema,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  AnthropicUserBlock,
  AnthropicUserMessage,
} from "./anthropic-api.js";
export {
  applyAnthropicCacheHints,
  isValidAnthropicTtlOrder,
  maxAnthropicCacheMarkers,
  planAnthropicCacheMarkers,
} from "./anthropic-cache-hints.js";
export type { AnthropicCacheMarkerPosition } from "./anthropic-cache-hints.js";
export { toAnthropicProviderError } from "./anthropic-errors.js";
export {
  anthropicProviderId,
  anthropicReplayStateSchema,
  readAnthropicReplayBlocks,
  toAnthropicReplayState,
} from "./anthropic-replay-state.js";
export type { AnthropicReplayBlock, AnthropicReplayState } from "./anthropic-replay-state.js";
export { convertAnthropicStream } from "./convert-anthropic-stream.js";
export { toAnthropicToolCallId } from "./anthropic-tool-call-id.js";
export { convertAnthropicUsage } from "./convert-anthropic-usage.js";
export { convertToAnthropicInput } from "./convert-to-anthropic-input.js";
export { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.js";
export { serializeAnthropicRequest } from "./serialize-anthropic-request.js";
export type { AnthropicSerializeSettings } from "./serialize-anthropic-request.js";
