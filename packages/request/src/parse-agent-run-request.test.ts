import { describe, expect, it } from "vitest";
import { loadAgentRunRequest } from "./__fixtures__/load-fixture.js";
import { parseAgentRunRequest } from "./parse-agent-run-request.js";
import { formatIssuePath } from "./validation-issues.js";

type Json = Record<string, unknown>;
type Request = Json & { action: Json; requestContext: Json };
type Mutation = (request: Request) => unknown;

const mib = 1024 * 1024;

function base(): Request {
  return loadAgentRunRequest() as unknown as Request;
}

function message(request: { action: Json }): Json {
  return request.action.message as Json;
}

function context(request: { requestContext: Json }, key: string): Json[] {
  return request.requestContext[key] as Json[];
}

function mcpServers(request: { requestContext: Json }): Json[] {
  return (request.requestContext.mcp as Json).servers as Json[];
}

function toolResults(): Json {
  return { type: "tool-results", results: [{ callId: "call_1", output: "ok" }] };
}

function completion(overrides: Json = {}): Json {
  return { taskId: "t-1", kind: "shell", status: "success", title: "pnpm dev", ...overrides };
}

/** Each case breaks exactly one thing; the request must be rejected with exactly that path. */
const malformedRequests: { name: string; mutate: Mutation; path: string }[] = [
  { name: "a body that is not an object", mutate: () => 5, path: "(root)" },
  {
    name: "missing conversationId",
    mutate: (r) => void delete r.conversationId,
    path: "conversationId",
  },
  {
    name: "empty conversationId",
    mutate: (r) => void (r.conversationId = ""),
    path: "conversationId",
  },
  {
    name: "conversationId with a space",
    mutate: (r) => void (r.conversationId = "c 1"),
    path: "conversationId",
  },
  {
    name: "conversationId with a slash",
    mutate: (r) => void (r.conversationId = "team/c-1"),
    path: "conversationId",
  },
  {
    name: "conversationId of 129 characters",
    mutate: (r) => void (r.conversationId = "c".repeat(129)),
    path: "conversationId",
  },
  { name: "runId with a space", mutate: (r) => void (r.runId = "run 1"), path: "runId" },
  { name: "runId as a number", mutate: (r) => void (r.runId = 7), path: "runId" },
  { name: "unknown mode", mutate: (r) => void (r.mode = "chat"), path: "mode" },
  { name: "missing mode", mutate: (r) => void delete r.mode, path: "mode" },
  { name: "empty model", mutate: (r) => void (r.model = ""), path: "model" },
  {
    name: "timestamp without an offset",
    mutate: (r) => void (r.timestamp = "2026-11-29T10:00:00"),
    path: "timestamp",
  },
  {
    name: "timestamp on a day that does not exist",
    mutate: (r) => void (r.timestamp = "2026-02-30T10:00:00Z"),
    path: "timestamp",
  },
  { name: "unknown top-level field", mutate: (r) => void (r.stream = true), path: "stream" },
  { name: "missing action", mutate: (r: Json) => void delete r.action, path: "action" },
  {
    name: "unknown action type",
    mutate: (r) => void (r.action.type = "reply"),
    path: "action.type",
  },
  {
    name: "user message without id",
    mutate: (r) => void delete message(r).id,
    path: "action.message.id",
  },
  {
    name: "blank user message without images",
    mutate: (r) => {
      message(r).text = "  \n";
      delete message(r).images;
    },
    path: "action.message.text",
  },
  {
    name: "user message text over 1 MiB",
    mutate: (r) => void (message(r).text = "é".repeat(mib / 2 + 1)),
    path: "action.message.text",
  },
  {
    name: "selected context of an unknown kind",
    mutate: (r) => void ((message(r).selectedContext as Json[])[2]!.kind = "url"),
    path: "action.message.selectedContext[2].kind",
  },
  {
    name: "code selection ending before it starts",
    mutate: (r) => void ((message(r).selectedContext as Json[])[0]!.endLine = 11),
    path: "action.message.selectedContext[0].endLine",
  },
  {
    name: "code selection starting at line 0",
    mutate: (r) => void ((message(r).selectedContext as Json[])[0]!.startLine = 0),
    path: "action.message.selectedContext[0].startLine",
  },
  {
    name: "selected file without a path",
    mutate: (r) => void delete (message(r).selectedContext as Json[])[1]!.path,
    path: "action.message.selectedContext[1].path",
  },
  {
    name: "selected file path with a line break",
    mutate: (r) => void ((message(r).selectedContext as Json[])[1]!.path = "a\nb.ts"),
    path: "action.message.selectedContext[1].path",
  },
  {
    name: "selected file content over 4 MiB",
    mutate: (r) =>
      void ((message(r).selectedContext as Json[])[1]!.content = "x".repeat(4 * mib + 1)),
    path: "action.message.selectedContext[1].content",
  },
  {
    name: "more than 1000 selected context items",
    mutate: (r) =>
      void (message(r).selectedContext = Array.from({ length: 1001 }, () => ({
        kind: "text",
        content: "x",
      }))),
    path: "action.message.selectedContext",
  },
  {
    name: "open file with negative totalLines",
    mutate: (r) => void ((message(r).openFiles as Json[])[0]!.totalLines = -1),
    path: "action.message.openFiles[0].totalLines",
  },
  {
    name: "recent file with cursorLine 0",
    mutate: (r) => void ((message(r).recentFiles as Json[])[0]!.cursorLine = 0),
    path: "action.message.recentFiles[0].cursorLine",
  },
  {
    name: "open file with an unknown field",
    mutate: (r) => void ((message(r).openFiles as Json[])[1]!.selection = "1-2"),
    path: "action.message.openFiles[1].selection",
  },
  {
    name: "image of an unsupported type",
    mutate: (r) => void ((message(r).images as Json[])[0]!.mimeType = "image/bmp"),
    path: "action.message.images[0].mimeType",
  },
  {
    name: "image data that is not base64",
    mutate: (r) => void ((message(r).images as Json[])[0]!.data = "not base64!"),
    path: "action.message.images[0].data",
  },
  {
    name: "unpadded image data",
    mutate: (r) => void ((message(r).images as Json[])[0]!.data = "iVBORw0"),
    path: "action.message.images[0].data",
  },
  {
    name: "tool results without results",
    mutate: (r) => void (r.action = { type: "tool-results", results: [] }),
    path: "action.results",
  },
  {
    name: "tool results with a repeated callId",
    mutate: (r) =>
      void (r.action = {
        type: "tool-results",
        results: [
          { callId: "call_1", output: "a" },
          { callId: "call_1", output: "b" },
        ],
      }),
    path: "action.results[1].callId",
  },
  {
    name: "tool result with a non-boolean isError",
    mutate: (r) => {
      r.action = toolResults();
      (r.action.results as Json[])[0]!.isError = "yes";
    },
    path: "action.results[0].isError",
  },
  {
    name: "tool results carrying a message",
    mutate: (r) => void (r.action = { ...toolResults(), message: "hi" }),
    path: "action.message",
  },
  {
    name: "blank injected context",
    mutate: (r) => void (r.action = { type: "inject-context", injectionId: "i-1", text: " " }),
    path: "action.text",
  },
  {
    name: "injected context without injectionId",
    mutate: (r) => void (r.action = { type: "inject-context", text: "saved a.ts" }),
    path: "action.injectionId",
  },
  {
    name: "background completion of an unknown kind",
    mutate: (r) =>
      void (r.action = {
        type: "background-completion",
        completions: [completion({ kind: "cron" })],
      }),
    path: "action.completions[0].kind",
  },
  {
    name: "background completion with an unknown status",
    mutate: (r) =>
      void (r.action = {
        type: "background-completion",
        completions: [completion(), completion({ taskId: "t-2", status: "done" })],
      }),
    path: "action.completions[1].status",
  },
  {
    name: "background task id with a dot",
    mutate: (r) =>
      void (r.action = {
        type: "background-completion",
        completions: [completion({ taskId: "t.1" })],
      }),
    path: "action.completions[0].taskId",
  },
  {
    name: "the same background completion twice",
    mutate: (r) =>
      void (r.action = {
        type: "background-completion",
        completions: [completion(), completion()],
      }),
    path: "action.completions[1].taskId",
  },
  {
    name: "summarize with a field",
    mutate: (r) => void (r.action = { type: "summarize", reason: "manual" }),
    path: "action.reason",
  },
  {
    name: "rule content that is not text",
    mutate: (r) => void (context(r, "rules")[0]!.content = 5),
    path: "requestContext.rules[0].content",
  },
  {
    name: "more than 1000 rules",
    mutate: (r) =>
      void (r.requestContext.rules = Array.from({ length: 1001 }, (_, i) => ({
        name: `r${i}`,
        content: "x",
      }))),
    path: "requestContext.rules",
  },
  {
    name: "skill without a path",
    mutate: (r) => void delete context(r, "skills")[1]!.path,
    path: "requestContext.skills[1].path",
  },
  {
    name: "subagent name with a line break",
    mutate: (r) => void (context(r, "subagents")[0]!.name = "a\nb"),
    path: "requestContext.subagents[0].name",
  },
  {
    name: "unknown time zone",
    mutate: (r) => void ((r.requestContext.env as Json).timeZone = "Mars/Olympus_Mons"),
    path: "requestContext.env.timeZone",
  },
  {
    name: "workspacePaths that is not a list",
    mutate: (r) => void ((r.requestContext.env as Json).workspacePaths = "/home/dev/app"),
    path: "requestContext.env.workspacePaths",
  },
  {
    name: "git repository with an empty path",
    mutate: (r) => void (context(r, "git")[0]!.path = ""),
    path: "requestContext.git[0].path",
  },
  {
    name: "two MCP servers with one name",
    mutate: (r) => void (mcpServers(r)[1]!.name = "postgres"),
    path: "requestContext.mcp.servers[1].name",
  },
  {
    name: "one MCP server listing a tool twice",
    mutate: (r) => void ((mcpServers(r)[0]!.tools as Json[])[1]!.name = "query"),
    path: "requestContext.mcp.servers[0].tools[1].name",
  },
  {
    name: "MCP input schema of a non-object type",
    mutate: (r) => void ((mcpServers(r)[0]!.tools as Json[])[0]!.inputSchema = { type: "string" }),
    path: "requestContext.mcp.servers[0].tools[0].inputSchema.type",
  },
  {
    name: "MCP input schema that is a list",
    mutate: (r) => void ((mcpServers(r)[1]!.tools as Json[])[0]!.inputSchema = []),
    path: "requestContext.mcp.servers[1].tools[0].inputSchema",
  },
  {
    name: "MCP input schema nested too deep",
    mutate: (r) => {
      let schema: Json = {};
      for (let depth = 0; depth < 40; depth += 1) schema = { a: schema };
      (mcpServers(r)[1]!.tools as Json[])[0]!.inputSchema = schema;
    },
    path: `requestContext.mcp.servers[1].tools[0].inputSchema${".a".repeat(32)}`,
  },
  {
    name: "MCP tools exposed under one name",
    mutate: (r) =>
      void (r.requestContext.mcp = {
        servers: [
          { name: "a", tools: [{ name: "b__c", inputSchema: {} }] },
          { name: "a__b", tools: [{ name: "c", inputSchema: {} }] },
        ],
      }),
    path: "requestContext.mcp.servers[1].tools[0].name",
  },
  {
    name: "unknown request context section",
    mutate: (r) => void (r.requestContext.memories = []),
    path: "requestContext.memories",
  },
  { name: "empty checkpoint", mutate: (r) => void (r.checkpoint = ""), path: "checkpoint" },
];

describe("parseAgentRunRequest", () => {
  it("accepts the full user-message fixture and returns it unchanged", () => {
    const request = loadAgentRunRequest();
    const result = parseAgentRunRequest(request);
    expect(result).toEqual({ success: true, data: request });
  });

  it.each([
    [
      "tool-results",
      { type: "tool-results", results: [{ callId: "call_1", output: "", isError: true }] },
    ],
    [
      "inject-context",
      { type: "inject-context", injectionId: "i-1", expectedRunId: "r-0", text: "saved" },
    ],
    [
      "background-completion",
      {
        type: "background-completion",
        completions: [
          completion({ toolCallId: "call_9", detail: "exit 0" }),
          completion({ kind: "subagent", status: "aborted" }),
        ],
      },
    ],
    ["summarize", { type: "summarize" }],
  ])("accepts a minimal %s request", (_type, action) => {
    const request = { conversationId: "a.b:c_d-1", runId: "r-2", mode: "plan", action };
    expect(parseAgentRunRequest(request)).toEqual({ success: true, data: request });
  });

  it("accepts a user message with only an image", () => {
    const request = loadAgentRunRequest();
    request.action.message.text = "";
    expect(parseAgentRunRequest(request).success).toBe(true);
  });

  it(`has a table of at least 30 malformed requests`, () => {
    expect(malformedRequests.length).toBeGreaterThanOrEqual(30);
    expect(new Set(malformedRequests.map((c) => c.name)).size).toBe(malformedRequests.length);
  });

  it.each(malformedRequests)("rejects $name at $path", ({ mutate, path }) => {
    const request = base();
    const replaced = mutate(request);
    const result = parseAgentRunRequest(replaced === undefined ? request : replaced);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues.map((issue) => issue.path)).toEqual([path]);
    expect(result.issues[0]!.message).not.toBe("");
  });

  it("lists every offending path of a request with several problems, each once", () => {
    const result = parseAgentRunRequest({
      conversationId: "bad id",
      runId: "",
      mode: "chat",
      action: { type: "nope" },
      extra: 1,
      requestContext: { rules: [{ name: "a", content: 5 }], env: { os: "linux", unknown: true } },
    });
    expect(result).toEqual({
      success: false,
      issues: [
        {
          path: "conversationId",
          message: "must use only A-Z, a-z, 0-9, '.', '_', ':' and '-'",
        },
        { path: "runId", message: "must not be empty" },
        { path: "mode", message: 'must be one of "agent", "ask", "plan", "debug"' },
        {
          path: "action.type",
          message:
            'must be one of "user-message", "tool-results", "inject-context", "background-completion", "summarize"',
        },
        { path: "requestContext.rules[0].content", message: "must be a string" },
        { path: "requestContext.env.unknown", message: "is not a known field" },
        { path: "extra", message: "is not a known field" },
      ],
    });
  });

  it("says which required fields are missing", () => {
    expect(parseAgentRunRequest({})).toEqual({
      success: false,
      issues: [
        { path: "conversationId", message: "is required" },
        { path: "runId", message: "is required" },
        { path: "mode", message: "is required" },
        { path: "action", message: "is required" },
      ],
    });
  });
});

describe("formatIssuePath", () => {
  it.each([
    [[], "(root)"],
    [["action", "message", "selectedContext", 2, "path"], "action.message.selectedContext[2].path"],
    [[0, "a"], "[0].a"],
    [["inputSchema", "properties", "my key", "type"], 'inputSchema.properties["my key"].type'],
  ] as const)("formats %j as %s", (path, formatted) => {
    expect(formatIssuePath(path)).toBe(formatted);
  });
});
