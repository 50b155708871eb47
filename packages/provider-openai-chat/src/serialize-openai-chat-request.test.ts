import { describe, expect, it } from "vitest";
import type { ModelRequest } from "@cursor/run";
import {
  conversationId,
  conversationRequests,
  foreignCallId,
} from "./__fixtures__/conversation.js";
import type { OpenAIChatSerializeSettings } from "./serialize-openai-chat-request.js";
import { serializeOpenAIChatRequest } from "./serialize-openai-chat-request.js";
import { openAIChatPromptCacheKey } from "./openai-chat-cache-hints.js";
import { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";

const deepSeekSettings: OpenAIChatSerializeSettings = {
  systemRole: "system",
  replayReasoningContent: true,
  promptCacheRetention: "24h",
};
const openAISettings: OpenAIChatSerializeSettings = {
  systemRole: "developer",
  replayReasoningContent: false,
};

function serialize(request: ModelRequest, settings = deepSeekSettings) {
  return serializeOpenAIChatRequest({ request, settings });
}

describe("serializeOpenAIChatRequest", () => {
  it("serialises a multi-turn conversation with tool rounds, images, reasoning and a context change", () => {
    const requests = conversationRequests();
    const last = requests.at(-1)!;
    const { body, warnings } = serialize(last);
    expect(body).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 4096,
        "messages": [
          {
            "content": "You are a coding agent. Be concise.",
            "role": "system",
          },
          {
            "content": "<rules>Use pnpm.</rules>
      <env>os: linux</env>",
            "role": "user",
          },
          {
            "content": "<user_query>The login test fails. Fix it.</user_query>
      <mode>agent</mode>",
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Here is the failure:",
                "type": "text",
              },
              {
                "image_url": {
                  "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==",
                },
                "type": "image_url",
              },
            ],
            "role": "user",
          },
          {
            "content": "Let me look at the test and the page.",
            "reasoning_content": "The test probably asserts on the old button label.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"path":"test/login.test.ts"}",
                  "name": "read_file",
                },
                "id": "call_A1",
                "type": "function",
              },
              {
                "function": {
                  "arguments": "{}",
                  "name": "screenshot",
                },
                "id": "call_B2",
                "type": "function",
              },
            ],
          },
          {
            "content": "expect(button).toHaveText('Sign in')",
            "role": "tool",
            "tool_call_id": "call_A1",
          },
          {
            "content": "Captured 1280x720.",
            "role": "tool",
            "tool_call_id": "call_B2",
          },
          {
            "content": [
              {
                "text": "Image returned by tool call call_B2 (screenshot):",
                "type": "text",
              },
              {
                "image_url": {
                  "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==",
                },
                "type": "image_url",
              },
            ],
            "role": "user",
          },
          {
            "content": "The button now says 'Log in'; I updated the test.",
            "reasoning_content": "Label changed in the last commit.",
            "role": "assistant",
          },
          {
            "content": "<rules>Use pnpm.</rules>
      <env>os: linux
      branch: fix-login</env>",
            "role": "user",
          },
          {
            "content": "<user_query>Run the tests.</user_query>
      <mode>agent</mode>",
            "role": "user",
          },
          {
            "content": null,
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"command": "pnpm test"}",
                  "name": "run_terminal_cmd",
                },
                "id": "call_021d53e00b8bce40d689fb9dd1b7f520",
                "type": "function",
              },
            ],
          },
          {
            "content": "exit code 1: 3 failed",
            "role": "tool",
            "tool_call_id": "call_021d53e00b8bce40d689fb9dd1b7f520",
          },
        ],
        "model": "gpt-5.1",
        "prompt_cache_key": "0827e71bbcdd753dd8be3e2e3c98d245",
        "prompt_cache_retention": "24h",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tool_choice": {
          "allowed_tools": {
            "mode": "auto",
            "tools": [
              {
                "function": {
                  "name": "read_file",
                },
                "type": "function",
              },
              {
                "function": {
                  "name": "run_terminal_cmd",
                },
                "type": "function",
              },
            ],
          },
          "type": "allowed_tools",
        },
        "tools": [
          {
            "function": {
              "description": "Read a file from the workspace.",
              "name": "read_file",
              "parameters": {
                "properties": {
                  "path": {
                    "description": "Workspace-relative path",
                    "type": "string",
                  },
                },
                "required": [
                  "path",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
          {
            "function": {
              "description": "Capture the browser viewport.",
              "name": "screenshot",
              "parameters": {
                "properties": {},
                "type": "object",
              },
            },
            "type": "function",
          },
          {
            "function": {
              "description": "Run a shell command.",
              "name": "run_terminal_cmd",
              "parameters": {
                "properties": {
                  "command": {
                    "type": "string",
                  },
                },
                "required": [
                  "command",
                ],
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `);
    expect(warnings).toEqual([
      {
        type: "unsupported",
        message:
          "Chat tool messages cannot carry images; the image of tool call call_B2 is sent in a user message after the round's tool results",
        path: "messages[5].image",
      },
    ]);
  });

  it("makes every serialised message list an exact prefix of the next call's, tools and system byte-identical", () => {
    const bodies = conversationRequests().map((request) => serialize(request).body);
    for (let turn = 1; turn < bodies.length; turn += 1) {
      const previous = bodies[turn - 1]!;
      const next = bodies[turn]!;
      expect(next.messages.length).toBeGreaterThan(previous.messages.length);
      expect(JSON.stringify(next.messages.slice(0, previous.messages.length))).toBe(
        JSON.stringify(previous.messages),
      );
      expect(JSON.stringify(next.tools)).toBe(JSON.stringify(previous.tools));
      expect(next.prompt_cache_key).toBe(previous.prompt_cache_key);
    }
    expect(bodies.map((body) => body.messages.length)).toEqual([4, 8, 11, 13]);
    // The mode's tool restriction only appears in tool_choice; the tool list never changes.
    expect(bodies.map((body) => body.tool_choice === undefined)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it("writes keys in a fixed order and gives byte-identical output for the same request", () => {
    const last = conversationRequests().at(-1)!;
    const first = serialize(last).body;
    expect(Object.keys(first)).toEqual([
      "model",
      "messages",
      "tools",
      "tool_choice",
      "max_completion_tokens",
      "prompt_cache_key",
      "prompt_cache_retention",
      "stream",
      "stream_options",
    ]);
    expect(first.messages.map((message) => Object.keys(message).join(","))).toEqual([
      "role,content",
      "role,content",
      "role,content",
      "role,content",
      "role,content,reasoning_content,tool_calls",
      "role,tool_call_id,content",
      "role,tool_call_id,content",
      "role,content",
      "role,content,reasoning_content",
      "role,content",
      "role,content",
      "role,content,tool_calls",
      "role,tool_call_id,content",
    ]);
    const again = conversationRequests().at(-1)!;
    expect(JSON.stringify(serialize(again).body)).toBe(JSON.stringify(first));
  });

  it("never mutates the request, even an unfrozen one", () => {
    const frozen = conversationRequests().at(-1)!;
    const thawed = JSON.parse(JSON.stringify(frozen)) as ModelRequest;
    const before = JSON.stringify(thawed);
    const body = serialize(thawed).body;
    body.messages.push({ role: "user", content: "appended to the body, not the request" });
    expect(JSON.stringify(thawed)).toBe(before);
    expect(JSON.stringify(serialize(thawed).body)).toBe(JSON.stringify(serialize(frozen).body));
  });

  it("replays reasoning_content only when enabled, and honours the system role", () => {
    const last = conversationRequests().at(-1)!;
    const { body } = serialize(last, openAISettings);
    expect(body.messages[0]).toEqual({
      role: "developer",
      content: "You are a coding agent. Be concise.",
    });
    expect(JSON.stringify(body)).not.toContain("reasoning_content");
    expect(JSON.stringify(body)).not.toContain("prompt_cache_retention");
    expect(body.messages[4]).toEqual({
      role: "assistant",
      content: "Let me look at the test and the page.",
      tool_calls: [
        {
          id: "call_A1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"test/login.test.ts"}' },
        },
        { id: "call_B2", type: "function", function: { name: "screenshot", arguments: "{}" } },
      ],
    });
  });

  it("maps a foreign tool call id the same way in the call and in its result", () => {
    const { body } = serialize(conversationRequests().at(-1)!);
    const mapped = toOpenAIChatToolCallId(foreignCallId);
    expect(mapped).toMatch(/^call_[0-9a-f]{32}$/);
    expect(body.messages[11]).toMatchObject({ tool_calls: [{ id: mapped }] });
    expect(body.messages[12]).toEqual({
      role: "tool",
      tool_call_id: mapped,
      content: "exit code 1: 3 failed",
    });
  });

  it("derives prompt_cache_key from the conversation id: stable per conversation, distinct across them", () => {
    const request = conversationRequests()[0]!;
    const other: ModelRequest = { ...request, conversationId: "conv-other" };
    expect(serialize(request).body.prompt_cache_key).toBe(
      openAIChatPromptCacheKey({ conversationId }),
    );
    expect(serialize(other).body.prompt_cache_key).toBe(
      openAIChatPromptCacheKey({ conversationId: "conv-other" }),
    );
    const scoped: ModelRequest = { ...request, cacheScope: "tenant-scope" };
    expect(serialize(scoped).body.prompt_cache_key).toBe(
      openAIChatPromptCacheKey({ conversationId, cacheScope: "tenant-scope" }),
    );
    expect(serialize(other).body.prompt_cache_key).not.toBe(
      serialize(request).body.prompt_cache_key,
    );
    expect(serialize(request).body.prompt_cache_key).not.toContain(conversationId);
  });

  it("leaves out optional keys that have nothing to say", () => {
    const request: ModelRequest = {
      ...conversationRequests()[0]!,
      tools: [],
      maxOutputTokens: undefined,
    };
    const { body, warnings } = serialize(request, openAISettings);
    expect(Object.keys(body)).toEqual([
      "model",
      "messages",
      "prompt_cache_key",
      "stream",
      "stream_options",
    ]);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(warnings).toEqual([]);
  });
});
