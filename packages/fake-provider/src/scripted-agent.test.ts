import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longInstructions } from "./__fixtures__/prompts.js";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";
import { scriptedAgentReply } from "./scripted-agent.js";

// What the gateway sends: a runtime message with the mode's tool list and the user's query.
const runtime = (query: string, tools = "read_file, list_directory, glob, grep, shell") =>
  `<runtime_context>\n<mode name="agent">\nYou are in Agent mode.\nTools available in this mode: ${tools}, and the tools of the user's MCP servers, if any.\n</mode>\n</runtime_context>\n<user_query>\n${query}\n</user_query>`;
const requestContext =
  "<request_context>\n<rules>\nUse strict TypeScript.\n</rules>\n</request_context>";
const toolNames = ["read_file", "list_directory", "glob", "grep", "shell"];
const responsesTools = toolNames.map((name) => ({
  type: "function" as const,
  name,
  parameters: { type: "object", properties: {} },
  strict: false,
}));
const userItem = (text: string) => ({
  type: "message" as const,
  role: "user" as const,
  content: [{ type: "input_text" as const, text }],
});
const responsesBody = (input: unknown[], extra: Record<string, unknown> = {}) => ({
  model: "simulated-model",
  instructions: longInstructions,
  tools: responsesTools,
  input,
  ...extra,
});

const grepOutput =
  "src/config.ts:3: export function loadConfig() {\nsrc/app.ts:1: import { loadConfig } from './config.js';";
const configSource =
  "     1\timport { readFileSync } from 'node:fs';\n     2\t\n     3\texport function loadConfig() {\n     4\t  return JSON.parse(readFileSync('config.json', 'utf8'));\n     5\t}\n     6\texport const port = 8080;\n";

describe("scripted agent: what it decides from a request body", () => {
  it("searches with grep when asked where something is, with its reasoning first", () => {
    const reply = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([
        userItem(requestContext),
        userItem(runtime("Where is the config loaded?")),
      ]),
    });
    expect(reply).toEqual({
      type: "reasoning",
      reasoning: "The user asks where config is, so I search the workspace for it with grep.",
      chunks: 1,
      then: {
        type: "tool-calls",
        calls: [{ name: "grep", arguments: '{"pattern":"config"}', callId: "call_1" }],
      },
    });
  });

  it("prefers a code-like identifier as the search pattern", () => {
    const reply = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([userItem(runtime("Where is loadConfig defined?"))]),
    });
    expect(reply).toMatchObject({
      then: { calls: [{ name: "grep", arguments: '{"pattern":"loadConfig"}' }] },
    });
  });

  it("answers from the grep results once they are in", () => {
    const reply = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([
        userItem(runtime("Where is the config loaded?")),
        {
          type: "function_call",
          call_id: "call_1",
          name: "grep",
          arguments: '{"pattern":"config"}',
        },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: "src/config.ts:3: loadConfig()",
        },
      ]),
    });
    expect(reply).toEqual({
      type: "reasoning",
      reasoning: "I have the results of the tool call; I answer from what they showed.",
      chunks: 1,
      then: {
        type: "text",
        text: "`config` appears in src/config.ts, line 3: `loadConfig()`.",
        chunks: 1,
      },
    });
  });

  it("reads a file it is asked to look at, then describes it (Chat Completions)", () => {
    const messages: unknown[] = [
      { role: "system", content: longInstructions },
      { role: "user", content: runtime("Look at src/config.ts, please.") },
    ];
    const tools = toolNames.map((name) => ({
      type: "function",
      function: { name, parameters: {} },
    }));
    const first = scriptedAgentReply({ api: "openai-chat", body: { model: "m", messages, tools } });
    expect(first).toMatchObject({
      type: "reasoning",
      reasoning:
        "The user wants me to look at src/config.ts, so I read it with read_file before answering.",
      then: {
        type: "tool-calls",
        calls: [{ name: "read_file", arguments: '{"path":"src/config.ts"}', callId: "call_1" }],
      },
    });
    const second = scriptedAgentReply({
      api: "openai-chat",
      body: {
        model: "m",
        tools,
        messages: [
          ...messages,
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "read_file", arguments: '{"path":"src/config.ts"}' },
              },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: configSource },
        ],
      },
    });
    expect(second).toMatchObject({
      then: { type: "text", text: "src/config.ts has 6 lines; it exports loadConfig and port." },
    });
  });

  it("searches, then reads the first match when the user wants it summarised (Anthropic)", () => {
    const query = runtime("Where is loadConfig defined? Then summarise it.");
    const tools = toolNames.map((name) => ({ name, input_schema: { type: "object" } }));
    const body = (messages: unknown[]) => ({ model: "claude", max_tokens: 1024, tools, messages });
    const grep = { type: "tool_use", id: "call_1", name: "grep", input: { pattern: "loadConfig" } };
    const read = {
      type: "tool_use",
      id: "call_2",
      name: "read_file",
      input: { path: "src/config.ts" },
    };
    const asked = [{ role: "user", content: [{ type: "text", text: query }] }];
    expect(scriptedAgentReply({ api: "anthropic", body: body(asked) })).toMatchObject({
      then: { calls: [{ name: "grep", arguments: '{"pattern":"loadConfig"}', callId: "call_1" }] },
    });
    const afterGrep = [
      ...asked,
      { role: "assistant", content: [grep] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_1", content: grepOutput }],
      },
    ];
    expect(scriptedAgentReply({ api: "anthropic", body: body(afterGrep) })).toEqual({
      type: "reasoning",
      reasoning:
        "grep found it in src/config.ts; the user also wants to know what is in it, so I read that file.",
      chunks: 1,
      then: {
        type: "tool-calls",
        calls: [{ name: "read_file", arguments: '{"path":"src/config.ts"}', callId: "call_2" }],
      },
    });
    const afterRead = [
      ...afterGrep,
      { role: "assistant", content: [read] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_2",
            content: [{ type: "text", text: configSource }],
          },
        ],
      },
    ];
    expect(scriptedAgentReply({ api: "anthropic", body: body(afterRead) })).toMatchObject({
      reasoning: "I have the results of 2 tool calls; I answer from what they showed.",
      then: {
        text:
          "`loadConfig` appears 2 times, first in src/config.ts, line 3: `export function loadConfig() {`; also in src/app.ts. " +
          "src/config.ts has 6 lines; it exports loadConfig and port.",
      },
    });
  });

  it("names the keys of a JSON file it read", () => {
    const reply = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([
        userItem(runtime("Read package.json")),
        {
          type: "function_call",
          call_id: "call_1",
          name: "read_file",
          arguments: '{"path":"package.json"}',
        },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: '     1\t{\n     2\t  "name": "app",\n     3\t  "scripts": {}\n     4\t}',
        },
      ]),
    });
    expect(reply).toMatchObject({
      then: { text: "package.json has 4 lines of JSON with the keys name and scripts." },
    });
  });

  it("reports a failed tool call and a grep without matches", () => {
    const tools = [{ name: "grep", input_schema: { type: "object" } }];
    const reply = scriptedAgentReply({
      api: "anthropic",
      body: {
        model: "claude",
        max_tokens: 1024,
        tools,
        messages: [
          { role: "user", content: runtime("Where is the router defined?") },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "call_1", name: "grep", input: { pattern: "router" } },
              { type: "tool_use", id: "call_2", name: "grep", input: { pattern: "routes" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_1", content: "", is_error: false },
              {
                type: "tool_result",
                tool_use_id: "call_2",
                content: "ripgrep: permission denied",
                is_error: true,
              },
            ],
          },
        ],
      },
    });
    expect(reply).toMatchObject({
      then: {
        text: "grep found no match for `router`. grep failed: ripgrep: permission denied.",
      },
    });
  });

  it("uses only the tools the mode allows, and answers directly without a tool intent", () => {
    const noGrep = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([userItem(runtime("Where is the config loaded?", "read_file, glob"))]),
    });
    expect(noGrep).toMatchObject({
      reasoning:
        "The request names no file to look at and nothing to search for, so I answer directly.",
      then: { type: "text" },
    });
    const hello = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody([userItem(runtime("Hello there"))]),
    });
    expect(hello).toMatchObject({
      then: {
        type: "text",
        text: expect.stringMatching(
          /^You asked: "Hello there"\. I am the gateway's simulated model/,
        ),
      },
    });
  });

  it("acknowledges background completions and injected context", () => {
    const completion =
      '<background_task_completion>\n<task id="t-1" kind="shell" status="success">\nnpm test\n</task>\nA background task you started earlier has finished.</background_task_completion>';
    expect(
      scriptedAgentReply({
        api: "openai-responses",
        body: responsesBody([userItem(runtime("Run the tests")), userItem(completion)]),
      }),
    ).toMatchObject({
      then: { text: 'Noted: the background task "npm test" ended with status success.' },
    });
    const injected =
      "<injected_context>\nThe user saved src/app.ts.\n</injected_context>\nThe editor added the context above.";
    expect(
      scriptedAgentReply({
        api: "openai-responses",
        body: responsesBody([userItem(runtime("Fix the bug")), userItem(injected)]),
      }),
    ).toMatchObject({ then: { text: 'Noted the added context: "The user saved src/app.ts.".' } });
  });

  it("writes a summary when the instructions ask to compact the conversation", () => {
    const reply = scriptedAgentReply({
      api: "openai-responses",
      body: responsesBody(
        [
          userItem(runtime("Where is loadConfig defined?")),
          {
            type: "function_call",
            call_id: "call_1",
            name: "grep",
            arguments: '{"pattern":"loadConfig"}',
          },
          { type: "function_call_output", call_id: "call_1", output: grepOutput },
        ],
        {
          instructions: "Your task now is to write a summary of the conversation so far.",
          tools: [],
        },
      ),
    });
    expect(reply).toMatchObject({
      then: {
        type: "text",
        text: "1. Goal: Where is loadConfig defined?\n3. Work done: grep loadConfig\n5. Next steps: continue from the latest request.",
      },
    });
  });

  it("is deterministic: the same body always gets the same reply", () => {
    const body = responsesBody([userItem(runtime("Look at README.md"))]);
    const copy = JSON.parse(JSON.stringify(body)) as unknown;
    expect(scriptedAgentReply({ api: "openai-responses", body })).toEqual(
      scriptedAgentReply({ api: "openai-responses", body: copy }),
    );
  });
});

describe("scripted agent behind the fake provider (official SDKs, cache simulation on)", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider({
      defaultReply: scriptedAgentReply,
      control: false,
      cache: { clock: () => 1_800_000_000_000 },
    });
  });
  afterAll(() => provider.close());

  it("runs a tool round over OpenAI Responses with reasoning, and the second call hits the cache", async () => {
    const client = new OpenAI({
      apiKey: "simulated",
      baseURL: provider.openaiBaseURL,
      maxRetries: 0,
    });
    const input: OpenAI.Responses.ResponseInputItem[] = [
      userItem(requestContext),
      userItem(runtime("Where is the config loaded?")),
    ];
    const base = {
      model: "simulated-model",
      instructions: longInstructions,
      tools: responsesTools,
      store: false,
      include: ["reasoning.encrypted_content" as const],
    };
    const first = await client.responses.create({ ...base, input });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    expect([call.call_id, call.name, call.arguments]).toEqual([
      "call_1",
      "grep",
      '{"pattern":"config"}',
    ]);
    const second = await client.responses.create({
      ...base,
      input: [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        {
          type: "function_call_output",
          call_id: "call_1",
          output: "src/config.ts:3: loadConfig()",
        },
      ],
    });
    expect(second.output_text).toBe("`config` appears in src/config.ts, line 3: `loadConfig()`.");
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(1024);
  });

  it("runs the same round over Anthropic Messages with a thinking block", async () => {
    const client = new Anthropic({
      apiKey: "simulated",
      baseURL: provider.anthropicBaseURL,
      maxRetries: 0,
    });
    const message = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      system: longInstructions,
      tools: toolNames.map((name) => ({ name, input_schema: { type: "object" as const } })),
      messages: [{ role: "user", content: runtime("Look at src/config.ts") }],
    });
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(message.content[1]).toMatchObject({
      id: "call_1",
      name: "read_file",
      input: { path: "src/config.ts" },
    });
  });

  it("keeps its control endpoints closed when asked to", async () => {
    const answer = await fetch(`${provider.url}/_fake/requests`);
    expect(answer.status).toBe(404);
    const enqueue = await fetch(`${provider.url}/_fake/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ replies: [{ type: "text", text: "scripted" }] }),
    });
    expect(enqueue.status).toBe(404);
    expect(provider.pendingReplies()).toBe(0);
  });
});

describe("fake provider without request records", () => {
  it("keeps no request bodies when recordRequests is off", async () => {
    const provider = await startFakeProvider({
      recordRequests: false,
      defaultReply: scriptedAgentReply,
    });
    try {
      const client = new OpenAI({ apiKey: "x", baseURL: provider.openaiBaseURL, maxRetries: 0 });
      await client.responses.create({ model: "m", input: runtime("Hello") });
      expect(provider.requests).toEqual([]);
      expect(provider.cacheStats().total.requests).toBe(1);
    } finally {
      await provider.close();
    }
  });
});
