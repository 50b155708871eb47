import { toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ToolCallSchema } from "../gen/agent_v1_pb.js";
import { toolCallDisplay } from "./tool-call-display.js";

const json = (input: Parameters<typeof toolCallDisplay>[0]) => {
  const call = toolCallDisplay(input);
  return call === undefined ? undefined : toJson(ToolCallSchema, call);
};

describe("tool calls as the IDE shows them", () => {
  it("maps catalog tools to their ToolCall variants with the model's arguments", () => {
    expect(
      json({ callId: "c1", name: "read_file", arguments: '{"path":"/a.ts","offset":3,"limit":9}' }),
    ).toEqual({
      toolCallId: "c1",
      readToolCall: { args: { path: "/a.ts", offset: 3, limit: 9 } },
    });
    expect(
      json({ callId: "c2", name: "glob", arguments: '{"pattern":"**/*.ts","directory":"/src"}' }),
    ).toEqual({
      toolCallId: "c2",
      globToolCall: { args: { globPattern: "**/*.ts", targetDirectory: "/src" } },
    });
    expect(
      json({ callId: "c3", name: "shell", arguments: '{"command":"ls","working_directory":"/r"}' }),
    ).toEqual({
      toolCallId: "c3",
      shellToolCall: { args: { command: "ls", workingDirectory: "/r", toolCallId: "c3" } },
    });
    expect(
      json({ callId: "c4", name: "write_file", arguments: '{"path":"/n.ts","contents":"x"}' }),
    ).toEqual({
      toolCallId: "c4",
      editToolCall: { args: { path: "/n.ts", streamContent: "x" } },
    });
    expect(json({ callId: "c5", name: "mcp__db__query", arguments: '{"sql":"select 1"}' })).toEqual(
      {
        toolCallId: "c5",
        mcpToolCall: {
          args: { name: "mcp__db__query", args: { sql: "select 1" }, toolCallId: "c5" },
        },
      },
    );
  });

  it("shows an error result in the variant's error case", () => {
    expect(
      json({
        callId: "c1",
        name: "read_file",
        arguments: '{"path":"/a.ts"}',
        result: { output: "not available", isError: true },
      }),
    ).toEqual({
      toolCallId: "c1",
      readToolCall: {
        args: { path: "/a.ts" },
        result: { error: { errorMessage: "not available" } },
      },
    });
  });

  it("has no variant for tools the IDE cannot show, and survives arguments that are not JSON", () => {
    expect(json({ callId: "c1", name: "web_search", arguments: "{}" })).toBeUndefined();
    expect(json({ callId: "c2", name: "grep", arguments: "{not json" })).toEqual({
      toolCallId: "c2",
      grepToolCall: { args: { toolCallId: "c2" } },
    });
  });
});
