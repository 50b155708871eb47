// Property: over random append-only histories — thinking-only replies, tool rounds and answers
// from another provider (no Anthropic thinking), replayed thinking, images, errors, mode switches
// — and random adapter settings (thinking on or off, cache TTLs), every body this package renders
// satisfies the Messages API's documented block rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toModelRequest } from "@cursor/run";
import type { JsonValue } from "@cursor/run";
import { conformancePromptSpec, conversationArbitrary } from "@cursor/testkit";
import type { AnthropicBody, AnthropicCacheTtl } from "./anthropic-api.js";
import { anthropicProviderId } from "./anthropic-replay-state.js";
import { serializeAnthropicRequest } from "./serialize-anthropic-request.js";
import type { AnthropicSerializeSettings } from "./serialize-anthropic-request.js";
import { anthropicBlockRuleViolations } from "./__fixtures__/anthropic-block-rules.js";

const ttlArbitrary = fc.constantFrom<AnthropicCacheTtl | undefined>(undefined, "5m", "1h");

/** Adapter settings; the stable-prefix TTL is never shorter than the history's (validated). */
const optionsArbitrary: fc.Arbitrary<AnthropicSerializeSettings> = fc
  .record({
    maxTokens: fc.constantFrom(1024, 8192),
    thinking: fc.option(fc.constantFrom(1024, 4096, 16_000), { nil: undefined }),
    cacheTtl: ttlArbitrary,
    stableLonger: fc.boolean(),
  })
  .map(({ maxTokens, thinking, cacheTtl, stableLonger }) => ({
    maxTokens,
    ...(thinking === undefined ? {} : { thinking: { budgetTokens: thinking } }),
    ...(cacheTtl === undefined ? {} : { cacheTtl }),
    ...(stableLonger ? { stablePrefixCacheTtl: "1h" as const } : {}),
  }));

const conversations = conversationArbitrary({
  providerId: anthropicProviderId,
  replayState: ({ reasoning, messageId }): JsonValue => ({
    blocks:
      messageId.length % 2 === 0
        ? [{ type: "thinking", thinking: reasoning, signature: `sig-${messageId}` }]
        : [
            { type: "thinking", thinking: reasoning, signature: `sig-${messageId}` },
            { type: "redacted_thinking", data: `opaque-${messageId}` },
          ],
  }),
  maxSteps: 14,
});

describe("every rendered Anthropic body satisfies the documented block rules", () => {
  it("holds over random histories, provider switches and settings", () => {
    fc.assert(
      fc.property(conversations, optionsArbitrary, (conversation, options) => {
        for (const snapshot of conversation.snapshots) {
          const request = toModelRequest({
            conversationId: "conv-rules",
            model: "claude-sonnet-4-6",
            promptSpec: conformancePromptSpec,
            messages: snapshot.messages,
            ...(snapshot.allowedTools === undefined ? {} : { allowedTools: snapshot.allowedTools }),
          });
          const { body } = serializeAnthropicRequest({ request, options });
          expect(anthropicBlockRuleViolations(body)).toEqual([]);
        }
      }),
      { numRuns: 150, seed: 2026 },
    );
  });

  it("the rule check itself finds the bodies the API refuses", () => {
    const base: AnthropicBody = {
      model: "m",
      max_tokens: 2048,
      system: [{ type: "text", text: "s" }],
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stream: true,
    };
    expect(anthropicBlockRuleViolations(base)).toEqual([]);
    const thinkingOnly: AnthropicBody = {
      ...base,
      messages: [
        ...base.messages,
        { role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }] },
        { role: "user", content: [{ type: "text", text: "next" }] },
      ],
    };
    expect(anthropicBlockRuleViolations(thinkingOnly)).toEqual([
      "messages[1]: the final block of an assistant message is not thinking",
    ]);
    const roundWithoutThinking: AnthropicBody = {
      ...base,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        ...base.messages,
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: false }] },
      ],
    };
    expect(anthropicBlockRuleViolations(roundWithoutThinking)).toEqual([
      "messages[1]: with thinking on, the open round's assistant message starts with thinking",
    ]);
    const misordered: AnthropicBody = {
      ...base,
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: " ", cache_control: { type: "ephemeral", ttl: "1h" } }],
        },
      ],
    };
    expect(anthropicBlockRuleViolations(misordered)).toEqual([
      "messages[0].content[0]: text blocks hold non-whitespace text",
      "cache_control: 1h markers come before 5m markers",
    ]);
  });
});
