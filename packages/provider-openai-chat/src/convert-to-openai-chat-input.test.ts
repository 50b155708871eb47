import { describe, expect, it } from "vitest";
import type { ModelMessage } from "@cursor/run";
import {
  createAssistantMessage,
  createPromptSpec,
  createSummaryMessage,
  createRequestContextMessage,
  createToolResultMessage,
  createUserMessage,
  deepFreeze,
  sha256Hex,
  toModelRequest,
} from "@cursor/run";
import { convertToOpenAIChatInput } from "./convert-to-openai-chat-input.js";

const promptSpec = createPromptSpec({ instructions: "Be brief.", tools: [] });

describe("convertToOpenAIChatInput", () => {
  it("puts the instructions first in the configured role", () => {
    for (const systemRole of ["system", "developer"] as const) {
      expect(
        convertToOpenAIChatInput({
          instructions: "Be brief.",
          messages: [],
          systemRole,
          replayReasoningContent: false,
        }),
      ).toEqual({ messages: [{ role: systemRole, content: "Be brief." }], warnings: [] });
    }
  });

  it("sends a compacted epoch (context, summary, new turn) and the continuation tail as user messages", () => {
    const request = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: [
        createRequestContextMessage({ eventId: "ctx.m3.0", digest: sha256Hex("ctx"), text: "ctx" }),
        createSummaryMessage({ summarizedEpoch: 0, text: "Earlier we fixed login." }),
        createUserMessage({ id: "user:m3", content: [{ type: "text", text: "Now deploy." }] }),
        createAssistantMessage({ runId: "r", step: 0, text: "Deploying." }),
      ],
      userTailText: "Continue.",
    });
    expect(request.messages.map((message) => message.role === "user" && message.source)).toEqual([
      "request-context",
      "summary",
      "user",
      false,
      "tail",
    ]);
    expect(
      convertToOpenAIChatInput({
        instructions: request.instructions,
        messages: request.messages,
        systemRole: "system",
        replayReasoningContent: false,
      }).messages,
    ).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "ctx" },
      { role: "user", content: "Earlier we fixed login." },
      { role: "user", content: "Now deploy." },
      { role: "assistant", content: "Deploying." },
      { role: "user", content: "Continue." },
    ]);
  });

  it("closes each tool round before the next message, so image messages never split a round", () => {
    const image = { type: "image", mimeType: "image/png", data: "AA==" } as const;
    const messages: readonly ModelMessage[] = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: [
        createUserMessage({ id: "user:1", content: [{ type: "text", text: "go" }] }),
        createAssistantMessage({
          runId: "r",
          step: 0,
          toolCalls: [
            { index: 0, callId: "c1", name: "shot", arguments: "{}" },
            { index: 1, callId: "c2", name: "shot", arguments: "{}" },
          ],
        }),
        createToolResultMessage({ callId: "c2", name: "shot", content: "two", image }),
        createToolResultMessage({ callId: "c1", name: "shot", content: "one" }),
        createAssistantMessage({
          runId: "r",
          step: 1,
          toolCalls: [{ index: 0, callId: "c3", name: "shot", arguments: "{}" }],
        }),
        createToolResultMessage({ callId: "c3", name: "shot", content: "three", image }),
      ],
    }).messages;
    const { messages: chat, warnings } = convertToOpenAIChatInput({
      instructions: "Be brief.",
      messages,
      systemRole: "system",
      replayReasoningContent: false,
    });
    expect(
      chat.map(
        (message) => `${message.role}:${"tool_call_id" in message ? message.tool_call_id : ""}`,
      ),
    ).toEqual([
      "system:",
      "user:",
      "assistant:",
      "tool:c1",
      "tool:c2",
      "user:",
      "assistant:",
      "tool:c3",
      "user:",
    ]);
    expect(warnings.map((warning) => warning.path)).toEqual([
      "messages[3].image",
      "messages[5].image",
    ]);
  });

  it("converts frozen history once: a later call shares the same wire messages, byte for byte", () => {
    // Frozen, as a HistoryLog holds them (`toModelRequest` then keeps its projections too).
    const history = deepFreeze([
      createUserMessage({ id: "user:1", content: [{ type: "text", text: "List files." }] }),
      createAssistantMessage({
        runId: "r",
        step: 0,
        text: "",
        toolCalls: [{ index: 0, callId: "call_1", name: "ls", arguments: "{}" }],
      }),
      createToolResultMessage({ callId: "call_1", name: "ls", content: "a b" }),
      createAssistantMessage({ runId: "r", step: 1, text: "Two files." }),
    ]);
    const project = (count: number) =>
      toModelRequest({
        conversationId: "c",
        model: "m",
        promptSpec,
        messages: history.slice(0, count),
      }).messages;
    const convert = (messages: readonly ModelMessage[], replayReasoningContent = false) =>
      convertToOpenAIChatInput({
        instructions: "Be brief.",
        messages,
        systemRole: "system",
        replayReasoningContent,
      });
    const first = convert(project(3)).messages;
    const second = convert(project(4)).messages;
    // The system message is rebuilt; every history message after it is the same object.
    for (let index = 1; index < first.length; index += 1) expect(second[index]).toBe(first[index]);
    expect(Object.isFrozen(second[1])).toBe(true);
    // Another reasoning setting converts again.
    expect(convert(project(4), true).messages[2]).not.toBe(second[2]);
    const unfrozen = structuredClone(project(4)) as ModelMessage[];
    expect(JSON.stringify(convert(unfrozen))).toBe(JSON.stringify(convert(project(4))));
    expect(convert(unfrozen).messages[1]).not.toBe(second[1]);
  });

  it("keeps a round's image message in place as the history grows, converting only what was added", () => {
    const image = { type: "image", mimeType: "image/png", data: "AA==" } as const;
    const history = deepFreeze([
      createUserMessage({ id: "user:1", content: [{ type: "text", text: "Shoot." }] }),
      createAssistantMessage({
        runId: "r",
        step: 0,
        toolCalls: [
          { index: 0, callId: "c1", name: "shot", arguments: "{}" },
          { index: 1, callId: "c2", name: "shot", arguments: "{}" },
        ],
      }),
      createToolResultMessage({ callId: "c1", name: "shot", content: "one", image }),
      createToolResultMessage({ callId: "c2", name: "shot", content: "two", image }),
      createAssistantMessage({ runId: "r", step: 1, text: "Two shots." }),
      createUserMessage({ id: "user:2", content: [{ type: "text", text: "Again." }] }),
    ]);
    const convert = (count: number) =>
      convertToOpenAIChatInput({
        instructions: "Be brief.",
        messages: toModelRequest({
          conversationId: "c",
          model: "m",
          promptSpec,
          messages: history.slice(0, count),
        }).messages,
        systemRole: "system",
        replayReasoningContent: false,
      });
    const atRound = convert(4);
    const later = convert(6);
    expect(later.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
      "user",
    ]);
    // Byte for byte the same prefix, the round's image message included.
    expect(JSON.stringify(later.messages.slice(0, atRound.messages.length))).toBe(
      JSON.stringify(atRound.messages),
    );
    expect(later.messages[5]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Image returned by tool call c1 (shot):" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
        { type: "text", text: "Image returned by tool call c2 (shot):" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
      ],
    });
    expect(later.warnings.map((warning) => warning.path)).toEqual([
      "messages[2].image",
      "messages[3].image",
    ]);
    // The tool messages are the very objects of the earlier call.
    expect(later.messages[3]).toBe(atRound.messages[3]);
    expect(later.messages[4]).toBe(atRound.messages[4]);
  });
});
