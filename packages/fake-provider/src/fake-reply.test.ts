import { describe, expect, it } from "vitest";
import { fakeReplySchema, normalizeReply, splitText } from "./fake-reply.js";

describe("fake replies", () => {
  it("unwraps cut, slow and reasoning into one plan", () => {
    expect(
      normalizeReply({
        type: "slow",
        delayMsPerEvent: 5,
        reply: {
          type: "cut",
          afterEvents: 3,
          reply: {
            type: "reasoning",
            reasoning: "a",
            then: {
              type: "reasoning",
              reasoning: "b",
              redacted: true,
              then: { type: "text", text: "hi" },
            },
          },
        },
      }),
    ).toEqual({
      kind: "answer",
      reasoning: [
        { reasoning: "a", redacted: false, chunks: 2 },
        { reasoning: "b", redacted: true, chunks: 2 },
      ],
      commentary: [],
      answer: { type: "text", text: "hi", chunks: 2, phase: undefined },
      cutAfterEvents: 3,
      delayMsPerEvent: 5,
    });
    expect(
      normalizeReply({ type: "tool-calls", calls: [{ name: "f", arguments: "{}" }] }),
    ).toMatchObject({
      answer: { type: "tool-calls", text: "" },
      cutAfterEvents: undefined,
      delayMsPerEvent: 0,
    });
  });

  it("unwraps commentary, a length stop and recorded stream events", () => {
    expect(
      normalizeReply({
        type: "reasoning",
        reasoning: "r",
        then: {
          type: "commentary",
          text: "Looking at the files.",
          then: { type: "text", text: "Done.", phase: "final_answer" },
        },
      }),
    ).toMatchObject({
      kind: "answer",
      reasoning: [{ reasoning: "r", redacted: false, chunks: 2 }],
      commentary: ["Looking at the files."],
      answer: { type: "text", text: "Done.", phase: "final_answer" },
    });
    expect(
      normalizeReply({ type: "reasoning", reasoning: "r", then: { type: "length" } }),
    ).toMatchObject({
      answer: { type: "length", text: "" },
    });
    expect(
      normalizeReply({
        type: "cut",
        afterEvents: 1,
        reply: { type: "stream", events: [{ a: 1 }] },
      }),
    ).toEqual({ kind: "stream", events: [{ a: 1 }], cutAfterEvents: 1, delayMsPerEvent: 0 });
    expect(
      fakeReplySchema.safeParse({ type: "error", status: 429, code: "insufficient_quota" }).success,
    ).toBe(true);
    expect(fakeReplySchema.safeParse({ type: "error", status: 402 }).success).toBe(true);
    expect(fakeReplySchema.safeParse({ type: "stream", events: [] }).success).toBe(false);
  });

  it("lets an error anywhere in the chain win", () => {
    expect(
      normalizeReply({
        type: "reasoning",
        reasoning: "x",
        then: { type: "error", status: 429, retryAfterSeconds: 2 },
      }),
    ).toEqual({
      kind: "error",
      status: 429,
      retryAfterSeconds: 2,
      message: undefined,
      code: undefined,
    });
    expect(
      normalizeReply({ type: "slow", delayMsPerEvent: 1, reply: { type: "context-overflow" } }),
    ).toEqual({
      kind: "context-overflow",
    });
  });

  it("validates replies with the schema", () => {
    expect(fakeReplySchema.safeParse({ type: "text", text: "x" }).success).toBe(true);
    expect(fakeReplySchema.safeParse({ type: "error", status: 418 }).success).toBe(false);
    expect(fakeReplySchema.safeParse({ type: "tool-calls", calls: [] }).success).toBe(false);
    expect(
      fakeReplySchema.safeParse({
        type: "cut",
        afterEvents: 1,
        reply: { type: "reasoning", reasoning: "r", then: { type: "nope" } },
      }).success,
    ).toBe(false);
  });

  it("splits text into chunks without breaking code points", () => {
    expect(splitText("abcdef", 3)).toEqual(["ab", "cd", "ef"]);
    expect(splitText("😀😀😀", 2)).toEqual(["😀😀", "😀"]);
    expect(splitText("", 3)).toEqual([""]);
    expect(splitText("ab", 5)).toEqual(["a", "b"]);
  });
});
