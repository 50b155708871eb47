import type { Usage } from "@cursor/run";
import type { AnthropicUsage } from "./anthropic-api.js";

/**
 * Anthropic reports three non-overlapping input counts; `Usage.inputTokens` is their sum, with
 * cache reads as `cachedInputTokens` and cache writes as `cacheWriteTokens`. The writes' split
 * by TTL (`cache_creation.ephemeral_5m_input_tokens` / `ephemeral_1h_input_tokens`) gives
 * `cacheWrite1hTokens` (1-hour writes cost 2×, 5-minute ones 1.25×); a server that reports only
 * the split has its sum as the writes. A missing or null field (e.g. a compatible server without
 * caching) counts as zero, never as an error.
 */
export function convertAnthropicUsage(usage: AnthropicUsage): Usage {
  const uncached = usage.input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const split = usage.cache_creation ?? undefined;
  const write1h = split?.ephemeral_1h_input_tokens ?? 0;
  const cacheWrite =
    usage.cache_creation_input_tokens ?? (split?.ephemeral_5m_input_tokens ?? 0) + write1h;
  return {
    inputTokens: uncached + cacheRead + cacheWrite,
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    ...(write1h > 0 ? { cacheWrite1hTokens: write1h } : {}),
    outputTokens: usage.output_tokens ?? 0,
  };
}

/**
 * `message_start` carries the input counts, `message_delta` the cumulative output count (and,
 * on some servers, final input counts). A field present in the later report wins.
 */
export function mergeAnthropicUsage(
  earlier: AnthropicUsage,
  later: AnthropicUsage | null | undefined,
): AnthropicUsage {
  if (later === null || later === undefined) return earlier;
  return {
    input_tokens: later.input_tokens ?? earlier.input_tokens,
    output_tokens: later.output_tokens ?? earlier.output_tokens,
    cache_read_input_tokens: later.cache_read_input_tokens ?? earlier.cache_read_input_tokens,
    cache_creation_input_tokens:
      later.cache_creation_input_tokens ?? earlier.cache_creation_input_tokens,
    cache_creation: later.cache_creation ?? earlier.cache_creation,
  };
}
