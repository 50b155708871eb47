// The @cursor/testkit conformance laws: deterministic bytes, no input mutation, the prefix law
// over generated append-only conversations (tool rounds, mode switches, context changes,
// background events, reasoning with replay), static parts stable, at most 4 cache markers, and
// every canonical content kind accepted.
import { stripCacheControl } from "@cursor/testkit";
import { describeProviderConformance } from "@cursor/testkit/vitest";
import type { AnthropicBody, AnthropicContentBlock } from "./anthropic-api.js";
import { createAnthropicAdapter } from "./anthropic-adapter.js";
import { maxAnthropicCacheMarkers } from "./anthropic-cache-hints.js";

describeProviderConformance<AnthropicBody>({
  adapter: createAnthropicAdapter({ apiKey: "sk-ant-conformance", baseURL: "http://127.0.0.1:9" }),
  model: "claude-sonnet-4-6",
  // Anthropic's prefix is the flat list of content blocks across messages: merging user-side
  // messages may grow the last user message, but never changes an earlier block.
  historyItems: (body) =>
    body.messages.flatMap((message): AnthropicContentBlock[] => message.content),
  staticParts: (body) => ({ system: body.system, tools: body.tools }),
  stripCacheMarkers: (body) => stripCacheControl(body),
  maxCacheMarkers: maxAnthropicCacheMarkers,
  replayState: ({ reasoning, messageId }) => ({
    blocks: [{ type: "thinking", thinking: reasoning, signature: `sig-${messageId}` }],
  }),
});
