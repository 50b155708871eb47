import { describe, expect, it } from "vitest";
import { codingSession } from "./__fixtures__/coding-session.js";
import { serializeOpenAIResponsesRequest } from "./serialize-openai-responses-request.js";

const settings = { promptCacheRetention: "24h", reasoningEffort: "medium" } as const;

describe("serializeOpenAIResponsesRequest", () => {
  it("serialises a multi-turn conversation with tool rounds, images, reasoning replay and a context change", () => {
    const { turn2Call1 } = codingSession();
    const { body, warnings } = serializeOpenAIResponsesRequest({ request: turn2Call1, settings });
    expect(warnings).toEqual([]);
    // The exact bytes sent (key order included), not a key-sorted rendering.
    expect(JSON.stringify(body, null, 2)).toMatchInlineSnapshot(`
      "{
        "model": "gpt-5",
        "instructions": "You are a coding agent working in the user's repository.",
        "tools": [
          {
            "type": "function",
            "name": "read_file",
            "description": "Reads a file of the workspace.",
            "parameters": {
              "additionalProperties": false,
              "properties": {
                "path": {
                  "description": "Workspace-relative path.",
                  "type": "string"
                }
              },
              "required": [
                "path"
              ],
              "type": "object"
            },
            "strict": true
          },
          {
            "type": "function",
            "name": "run_terminal_cmd",
            "description": "Runs a shell command.",
            "parameters": {
              "properties": {
                "command": {
                  "type": "string"
                },
                "timeout_ms": {
                  "minimum": 1,
                  "type": "integer"
                }
              },
              "required": [
                "command"
              ],
              "type": "object"
            },
            "strict": false
          },
          {
            "type": "function",
            "name": "take_screenshot",
            "description": "Screenshots the running app.",
            "parameters": {
              "additionalProperties": false,
              "properties": {},
              "required": [],
              "type": "object"
            },
            "strict": true
          }
        ],
        "tool_choice": {
          "type": "allowed_tools",
          "mode": "auto",
          "tools": [
            {
              "type": "function",
              "name": "read_file"
            }
          ]
        },
        "input": [
          {
            "type": "message",
            "role": "user",
            "content": [
              {
                "type": "input_text",
                "text": "<rules>Use pnpm.</rules>"
              }
            ]
          },
          {
            "type": "message",
            "role": "user",
            "content": [
              {
                "type": "input_text",
                "text": "<user_query>Why does the test fail? Screenshot attached.</user_query>"
              },
              {
                "type": "input_image",
                "image_url": "data:image/png;base64,iVBORw0KGgo=",
                "detail": "auto"
              }
            ]
          },
          {
            "type": "reasoning",
            "id": "rs_001",
            "summary": [
              {
                "type": "summary_text",
                "text": "Look at the failing test first."
              }
            ],
            "encrypted_content": "gAAAAA-enc-1"
          },
          {
            "type": "message",
            "role": "assistant",
            "content": "Let me look."
          },
          {
            "type": "function_call",
            "call_id": "call_read1",
            "name": "read_file",
            "arguments": "{\\"path\\":\\"src/a.test.ts\\"}"
          },
          {
            "type": "function_call",
            "call_id": "call_18aa4f7a5f915101cf760df25cf6d745eaf115bfdcd5c953",
            "name": "take_screenshot",
            "arguments": "{}"
          },
          {
            "type": "function_call",
            "call_id": "call_cmd3",
            "name": "run_terminal_cmd",
            "arguments": "{ \\"command\\": \\"pnpm test\\" }"
          },
          {
            "type": "function_call_output",
            "call_id": "call_read1",
            "output": "expect(add(1, 1)).toBe(2);"
          },
          {
            "type": "function_call_output",
            "call_id": "call_18aa4f7a5f915101cf760df25cf6d745eaf115bfdcd5c953",
            "output": [
              {
                "type": "input_image",
                "image_url": "data:image/jpeg;base64,/9j/4AAQ",
                "detail": "auto"
              }
            ]
          },
          {
            "type": "function_call_output",
            "call_id": "call_cmd3",
            "output": "exit 1: expected 2, got 3"
          },
          {
            "type": "reasoning",
            "id": "rs_002",
            "summary": [],
            "encrypted_content": "gAAAAA-enc-2"
          },
          {
            "type": "message",
            "role": "assistant",
            "content": "\`add\` is off by one."
          },
          {
            "type": "message",
            "role": "user",
            "content": [
              {
                "type": "input_text",
                "text": "<rules>Use pnpm. Never edit tests.</rules>"
              }
            ]
          },
          {
            "type": "message",
            "role": "user",
            "content": [
              {
                "type": "input_text",
                "text": "<user_query>Explain the fix.</user_query>"
              }
            ]
          }
        ],
        "reasoning": {
          "effort": "medium",
          "summary": "auto"
        },
        "max_output_tokens": 4096,
        "store": false,
        "include": [
          "reasoning.encrypted_content"
        ],
        "stream": true,
        "prompt_cache_key": "conv_321b3363e2945e7c9e19891166cc166570e19539",
        "prompt_cache_retention": "24h"
      }"
    `);
  });

  it("keeps each call's input an exact prefix of the next call's input, and the spec byte-equal", () => {
    const session = codingSession();
    const bodies = [session.turn1Call1, session.turn1Call2, session.turn2Call1].map(
      (request) => serializeOpenAIResponsesRequest({ request, settings }).body,
    );
    for (let i = 0; i + 1 < bodies.length; i += 1) {
      const earlier = bodies[i]!;
      const later = bodies[i + 1]!;
      expect(later.input.length).toBeGreaterThan(earlier.input.length);
      expect(JSON.stringify(later.input.slice(0, earlier.input.length))).toBe(
        JSON.stringify(earlier.input),
      );
      const inputStart = JSON.stringify(later.input).slice(0, -1);
      expect(inputStart.startsWith(JSON.stringify(earlier.input).slice(0, -1))).toBe(true);
      expect(JSON.stringify(later.tools)).toBe(JSON.stringify(earlier.tools));
      expect(later.instructions).toBe(earlier.instructions);
      expect(later.prompt_cache_key).toBe(earlier.prompt_cache_key);
    }
  });

  it("is deterministic and leaves the request untouched", () => {
    const first = codingSession().turn2Call1;
    const second = codingSession().turn2Call1;
    const before = JSON.stringify(first);
    const a = JSON.stringify(serializeOpenAIResponsesRequest({ request: first, settings }));
    const b = JSON.stringify(serializeOpenAIResponsesRequest({ request: second, settings }));
    expect(a).toBe(b);
    expect(JSON.stringify(first)).toBe(before);
  });

  it("gives every conversation its own cache key", () => {
    const request = codingSession().turn1Call1;
    const other = { ...request, conversationId: "conv-43" };
    const key = serializeOpenAIResponsesRequest({ request, settings: {} }).body.prompt_cache_key;
    const otherKey = serializeOpenAIResponsesRequest({ request: other, settings: {} }).body
      .prompt_cache_key;
    expect(key).toMatch(/^conv_[0-9a-f]{40}$/);
    expect(otherKey).not.toBe(key);
  });

  it("leaves out optional fields that are not set, keeping a fixed key order", () => {
    const request = { ...codingSession().turn1Call1, tools: [], maxOutputTokens: undefined };
    const { body } = serializeOpenAIResponsesRequest({ request, settings: {} });
    expect(Object.keys(body)).toEqual([
      "model",
      "instructions",
      "input",
      "store",
      "include",
      "stream",
      "prompt_cache_key",
    ]);
  });

  it("sends a reasoning summary setting on its own and in-memory retention as in_memory", () => {
    const request = codingSession().turn1Call1;
    const { body } = serializeOpenAIResponsesRequest({
      request,
      settings: { reasoningSummary: "detailed", promptCacheRetention: "in-memory" },
    });
    expect(body.reasoning).toEqual({ summary: "detailed" });
    expect(body.prompt_cache_retention).toBe("in_memory");
    expect(Object.keys(body).slice(-2)).toEqual(["prompt_cache_key", "prompt_cache_retention"]);
  });

  it("leaves out the encrypted reasoning include for models without reasoning", () => {
    const request = codingSession().turn1Call1;
    const { body } = serializeOpenAIResponsesRequest({
      request,
      settings: { encryptedReasoning: false },
    });
    expect(body.include).toBeUndefined();
    expect(body.store).toBe(false);
    expect(
      serializeOpenAIResponsesRequest({ request, settings: { encryptedReasoning: true } }).body
        .include,
    ).toEqual(["reasoning.encrypted_content"]);
  });
});
