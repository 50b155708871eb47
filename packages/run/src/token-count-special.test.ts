// Text is text: any user, tool or file content may hold sequences a tokenizer treats as special
// (`<|endoftext|>`, `<|im_start|>`, …). Counting, estimating and rendering must never throw on
// them, whatever else the text holds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { promptSpec } from "./__fixtures__/loop-fixtures.js";
import {
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
} from "./message-builders.js";
import { buildSummarizerRequest } from "./summarizer-request.js";
import { countMessageTokens, countTextTokens } from "./token-count.js";
import { estimateRequestTokens } from "./token-estimate.js";
import { toModelRequest } from "./to-model-request.js";

const specialTokens = [
  "<|endoftext|>",
  "<|endofprompt|>",
  "<|im_start|>",
  "<|im_end|>",
  "<|im_sep|>",
  "<|fim_prefix|>",
  "<|fim_middle|>",
  "<|fim_suffix|>",
  "<|startoftext|>",
];

const textWithSpecials = fc
  .array(fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom(...specialTokens)), {
    maxLength: 8,
  })
  .map((parts) => parts.join(""));

describe("token counting on special-token text", () => {
  it("counts every special token as ordinary text instead of throwing", () => {
    for (const token of specialTokens) {
      expect(countTextTokens(`before ${token} after`)).toBeGreaterThan(3);
    }
    // Over the chunked path too (long texts are counted in pieces).
    expect(
      countTextTokens(`${"x ".repeat(1_500)}<|endoftext|>${" y".repeat(1_500)}`),
    ).toBeGreaterThan(3_000);
  });

  it("never throws for any text (lone surrogates, specials split across chunks included)", () => {
    fc.assert(
      fc.property(textWithSpecials, (text) => {
        expect(countTextTokens(text)).toBeGreaterThanOrEqual(0);
        const long = `${"a".repeat(1_995)}${text}`;
        expect(countTextTokens(long)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 200, seed: 13 },
    );
  });

  it("estimates and builds summariser requests over histories quoting special tokens", () => {
    const messages = [
      createUserMessage({
        id: "user:1",
        content: [{ type: "text", text: "Why does <|endoftext|> end my prompt?" }],
      }),
      createAssistantMessage({
        runId: "r1",
        step: 0,
        text: "<|im_start|>assistant",
        reasoning: "<|im_end|>",
        toolCalls: [
          { index: 0, callId: "call_1", name: "read_file", arguments: '{"p":"<|fim_prefix|>"}' },
        ],
      }),
      createToolResultMessage({
        callId: "call_1",
        name: "read_file",
        content: "<|endoftext|>".repeat(50),
      }),
    ];
    const request = toModelRequest({ conversationId: "c", model: "m", promptSpec, messages });
    for (const message of request.messages) expect(countMessageTokens(message)).toBeGreaterThan(0);
    expect(estimateRequestTokens({ request, epoch: 0 })).toBeGreaterThan(0);
    const summarizer = buildSummarizerRequest({
      conversationId: "c",
      model: "m",
      instructions: "Summarise <|endoftext|>.",
      messages,
      maxInputTokens: 60,
    });
    expect(summarizer.messages).toHaveLength(1);
  });
});
