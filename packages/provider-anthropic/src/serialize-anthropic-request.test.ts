import { describe, expect, it } from "vitest";
import {
  createAssistantMessage,
  createPromptSpec,
  createRuntimeMessage,
  createToolResultMessage,
  deepFreeze,
  toModelRequest,
} from "@cursor/run";
import type { CanonicalMessage, JsonValue, ModelRequest } from "@cursor/run";
import { countCacheControlMarkers, stripCacheControl } from "@cursor/testkit";
import type { AnthropicBody, AnthropicContentBlock } from "./anthropic-api.js";
import { createAnthropicAdapter } from "./anthropic-adapter.js";
import { conversationRequests, promptSpec } from "./__fixtures__/conversation.js";
import { countMarkers, flattenPrefix } from "./__fixtures__/flatten-blocks.js";
import { serializeAnthropicRequest } from "./serialize-anthropic-request.js";

const options = { maxTokens: 8192 };
const serialize = (request: ModelRequest, extra: Partial<typeof options> = {}) =>
  serializeAnthropicRequest({ request, options: { ...options, ...extra } });

describe("serializeAnthropicRequest", () => {
  it("serialises a multi-turn conversation with tool rounds, images, thinking and a context change", () => {
    const { body, warnings } = serialize(conversationRequests[3]!);
    expect(warnings).toEqual([]);
    // The exact wire text: key order is part of what the snapshot pins.
    expect(JSON.stringify(body, null, 2)).toMatchInlineSnapshot(`
      "{
        "model": "claude-sonnet-4-6",
        "max_tokens": 8192,
        "system": [
          {
            "type": "text",
            "text": "You are a careful coding agent. Use tools to inspect the workspace.",
            "cache_control": {
              "type": "ephemeral"
            }
          }
        ],
        "tools": [
          {
            "name": "read_file",
            "description": "Read a file from the workspace.",
            "input_schema": {
              "properties": {
                "path": {
                  "type": "string"
                }
              },
              "required": [
                "path"
              ],
              "type": "object"
            }
          },
          {
            "name": "run_command",
            "description": "Run a shell command.",
            "input_schema": {
              "properties": {
                "command": {
                  "type": "string"
                }
              },
              "required": [
                "command"
              ],
              "type": "object"
            },
            "cache_control": {
              "type": "ephemeral"
            }
          }
        ],
        "messages": [
          {
            "role": "user",
            "content": [
              {
                "type": "text",
                "text": "Rules: prefer small diffs.\\nEnvironment: linux, repo at /work."
              },
              {
                "type": "text",
                "text": "<query>What is in this repo? See the screenshot.</query>"
              },
              {
                "type": "image",
                "source": {
                  "type": "base64",
                  "media_type": "image/png",
                  "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
                }
              }
            ]
          },
          {
            "role": "assistant",
            "content": [
              {
                "type": "thinking",
                "thinking": "List the files and read the README.",
                "signature": "sig-run1-0"
              },
              {
                "type": "redacted_thinking",
                "data": "redacted-run1-0"
              },
              {
                "type": "text",
                "text": "Let me look around."
              },
              {
                "type": "tool_use",
                "id": "toolu_01A",
                "name": "run_command",
                "input": {
                  "command": "ls"
                }
              },
              {
                "type": "tool_use",
                "id": "call_x_1_29e9750b1459",
                "name": "read_file",
                "input": {
                  "path": "README.md"
                }
              }
            ]
          },
          {
            "role": "user",
            "content": [
              {
                "type": "tool_result",
                "tool_use_id": "toolu_01A",
                "content": [
                  {
                    "type": "text",
                    "text": "README.md\\nsrc"
                  }
                ],
                "is_error": false
              },
              {
                "type": "tool_result",
                "tool_use_id": "call_x_1_29e9750b1459",
                "content": [
                  {
                    "type": "text",
                    "text": "# Demo\\n![diagram](diagram.png)"
                  },
                  {
                    "type": "image",
                    "source": {
                      "type": "base64",
                      "media_type": "image/png",
                      "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
                    }
                  }
                ],
                "is_error": false
              }
            ]
          },
          {
            "role": "assistant",
            "content": [
              {
                "type": "thinking",
                "thinking": "Enough to answer.",
                "signature": "sig-run1-1"
              },
              {
                "type": "text",
                "text": "The repo has a README and a src folder."
              }
            ]
          },
          {
            "role": "user",
            "content": [
              {
                "type": "text",
                "text": "Rules: prefer small diffs.\\nEnvironment: linux, repo at /work, branch feature."
              },
              {
                "type": "text",
                "text": "<query>Open notes.txt</query>",
                "cache_control": {
                  "type": "ephemeral"
                }
              }
            ]
          },
          {
            "role": "assistant",
            "content": [
              {
                "type": "thinking",
                "thinking": "Read it.",
                "signature": "sig-run2-0"
              },
              {
                "type": "tool_use",
                "id": "toolu_02B",
                "name": "read_file",
                "input": {
                  "path": "notes.txt"
                }
              }
            ]
          },
          {
            "role": "user",
            "content": [
              {
                "type": "tool_result",
                "tool_use_id": "toolu_02B",
                "content": [
                  {
                    "type": "text",
                    "text": "ENOENT: notes.txt"
                  }
                ],
                "is_error": true
              },
              {
                "type": "text",
                "text": "<background>task1 finished: exit 0</background>",
                "cache_control": {
                  "type": "ephemeral"
                }
              }
            ]
          }
        ],
        "stream": true
      }"
    `);
  });

  it("keeps every earlier turn a block-level prefix of the next (markers aside)", () => {
    const bodies = conversationRequests.map((request) => serialize(request).body);
    for (let turn = 1; turn < bodies.length; turn += 1) {
      const previous = flattenPrefix(bodies[turn - 1]!);
      const next = flattenPrefix(bodies[turn]!);
      expect(next.length).toBeGreaterThan(previous.length);
      expect(next.slice(0, previous.length)).toEqual(previous);
    }
  });

  it("gives byte-identical output for identical input and never mutates the request", () => {
    const request = conversationRequests[3]!;
    const before = JSON.stringify(request);
    const first = JSON.stringify(serialize(request).body);
    const second = JSON.stringify(serialize(structuredClone(request) as ModelRequest).body);
    expect(second).toBe(first);
    expect(JSON.stringify(request)).toBe(before);
    expect(Object.isFrozen(request.messages[0])).toBe(true);
  });

  it("serialises instructions and tools byte-identically across turns", () => {
    const bodies = conversationRequests.map((request) => serialize(request).body);
    const specs = bodies.map((body) => flattenPrefix({ ...body, messages: [] }).join("\n"));
    expect(new Set(specs).size).toBe(1);
  });

  it("never places more than four cache markers", () => {
    for (const request of conversationRequests) {
      expect(countMarkers(serialize(request).body)).toBeLessThanOrEqual(4);
    }
    expect(countMarkers(serialize(conversationRequests[3]!).body)).toBe(4);
  });

  it("keeps tools and tool_choice constant whatever the allowed tools are", () => {
    const request = conversationRequests[3]!;
    const restricted = deepFreeze({ ...request, allowedTools: ["read_file"] });
    const result = serialize(restricted);
    expect(JSON.stringify(result.body)).toBe(JSON.stringify(serialize(request).body));
    expect(result.warnings).toEqual([]);
    expect("tool_choice" in result.body).toBe(false);
  });

  it("takes max_tokens from the request over the adapter default", () => {
    const request = deepFreeze({ ...conversationRequests[0]!, maxOutputTokens: 1000 });
    expect(serialize(request).body.max_tokens).toBe(1000);
    expect(serialize(conversationRequests[0]!).body.max_tokens).toBe(8192);
  });

  it("sends thinking settings and the cache TTL when configured", () => {
    const { body, warnings } = serializeAnthropicRequest({
      request: conversationRequests[0]!,
      options: { maxTokens: 8192, thinking: { budgetTokens: 2048 }, cacheTtl: "1h" },
    });
    expect(warnings).toEqual([]);
    expect(Object.keys(body)).toEqual([
      "model",
      "max_tokens",
      "thinking",
      "system",
      "tools",
      "messages",
      "stream",
    ]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.system).toEqual([
      {
        type: "text",
        text: promptSpec.instructions,
        cache_control: { type: "ephemeral", ttl: "1h" },
      },
    ]);
  });

  it("adds the thinking budget on top when max_tokens leaves it no room", () => {
    const request = deepFreeze({ ...conversationRequests[0]!, maxOutputTokens: 1000 });
    const { body, warnings } = serializeAnthropicRequest({
      request,
      options: { maxTokens: 8192, thinking: { budgetTokens: 2048 } },
    });
    expect(body.max_tokens).toBe(3048);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(warnings).toEqual([
      {
        type: "other",
        message: "max_tokens 1000 does not exceed the thinking budget 2048; sent max_tokens 3048",
        path: "maxOutputTokens",
      },
    ]);
  });

  it("omits tools when the prompt spec has none", () => {
    const request = toModelRequest({
      conversationId: "c",
      model: "claude-haiku-4-5",
      promptSpec: createPromptSpec({ instructions: "Be brief.", tools: [] }),
      messages: [],
    });
    const { body } = serialize(request);
    expect(body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 8192,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [],
      stream: true,
    });
  });

  describe("thinking with an open tool round that has no Anthropic thinking", () => {
    const spec = createPromptSpec({ instructions: "Be brief.", tools: [...promptSpec.tools] });
    const runtime = createRuntimeMessage({
      eventId: "turn.m1.cccccccccccccccc",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "Read a.ts" }],
    });
    const roundFrom = (replay: Record<string, JsonValue>) => [
      runtime,
      createAssistantMessage({
        runId: "r1",
        step: 0,
        text: "Reading.",
        reasoning: "read it first",
        toolCalls: [
          { index: 0, callId: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
        ],
        replay,
      }),
      createToolResultMessage({ callId: "call_1", name: "read_file", content: "export {}" }),
    ];
    const requestOf = (messages: CanonicalMessage[]) =>
      toModelRequest({
        conversationId: "c",
        model: "claude-sonnet-4-6",
        promptSpec: spec,
        messages,
      });
    const withThinking = { maxTokens: 8192, thinking: { budgetTokens: 2048 } };

    it("sends the round without `thinking` (a valid body) and says why", () => {
      // The round came from another provider: no signed thinking block can start it.
      const foreign: Record<string, JsonValue>[] = [
        { "openai-responses": { reasoningItems: [] } },
        {},
      ];
      for (const replay of foreign) {
        const { body, warnings } = serializeAnthropicRequest({
          request: requestOf(roundFrom(replay)),
          options: withThinking,
        });
        expect("thinking" in body).toBe(false);
        expect(body.max_tokens).toBe(8192);
        expect(body.messages[1]!.content[0]!.type).toBe("text");
        expect(warnings).toEqual([
          {
            type: "other",
            message:
              "thinking left off for this call: the open tool round's assistant message has no Anthropic thinking block to start with (it came from another provider or from a call without thinking), and with thinking on the API refuses such a round",
            path: "messages[1]",
          },
        ]);
      }
    });

    it("keeps thinking on when the round starts with its signed thinking", () => {
      const { body, warnings } = serializeAnthropicRequest({
        request: requestOf(
          roundFrom({
            anthropic: {
              blocks: [{ type: "thinking", thinking: "read it first", signature: "s" }],
            },
          }),
        ),
        options: withThinking,
      });
      expect(warnings).toEqual([]);
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    });

    it("keeps thinking on once the round is closed by an answer, and byte-stable history", () => {
      const closed = [
        ...roundFrom({}),
        createAssistantMessage({ runId: "r1", step: 1, text: "It is empty." }),
        createRuntimeMessage({
          eventId: "turn.m2.dddddddddddddddd",
          runtimeKind: "user-turn",
          content: [{ type: "text", text: "Thanks" }],
        }),
      ];
      const open = serializeAnthropicRequest({
        request: requestOf(roundFrom({})),
        options: withThinking,
      });
      const later = serializeAnthropicRequest({
        request: requestOf(closed),
        options: withThinking,
      });
      expect(later.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
      expect(later.warnings).toEqual([]);
      const blocks = (body: AnthropicBody) =>
        stripCacheControl(body.messages).flatMap(
          (message): AnthropicContentBlock[] => message.content,
        );
      expect(blocks(later.body).slice(0, blocks(open.body).length)).toEqual(blocks(open.body));
    });
  });

  describe("cache TTLs", () => {
    it("gives the stable prefix (tools, system) a 1-hour TTL before the 5-minute history markers", () => {
      const { body } = serializeAnthropicRequest({
        request: conversationRequests[1]!,
        options: { maxTokens: 8192, stablePrefixCacheTtl: "1h" },
      });
      expect(body.tools!.at(-1)!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
      expect(body.system[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
      const historyMarkers = body.messages
        .flatMap((message): AnthropicContentBlock[] => message.content)
        .flatMap((block) =>
          "cache_control" in block && block.cache_control ? [block.cache_control] : [],
        );
      expect(historyMarkers.length).toBeGreaterThan(0);
      for (const marker of historyMarkers) expect(marker).toEqual({ type: "ephemeral" });
      expect(countCacheControlMarkers(body)).toBeLessThanOrEqual(4);
    });

    it("refuses a stable-prefix TTL shorter than the history's (the API wants longer first)", () => {
      expect(() => createAnthropicAdapter({ cacheTtl: "1h", stablePrefixCacheTtl: "5m" })).toThrow(
        /stablePrefixCacheTtl "5m" is shorter than cacheTtl "1h"/,
      );
    });
  });
});
