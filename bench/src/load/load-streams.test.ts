import { describe, expect, it } from "vitest";
import { answerProblem, directProblem, parseSseEvents, readToolCall } from "./load-streams.js";

const sse = (...events: [string, unknown][]) =>
  events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");

describe("load streams", () => {
  it("parses events, skipping comments", () => {
    expect(parseSseEvents(`: keep-alive\n\nevent: a\ndata: 1\n\ndata: 2\n\n`)).toEqual([
      { event: "a", data: "1" },
      { event: "message", data: "2" },
    ]);
  });

  it("takes the tool call of a run that awaits tools, and refuses anything else", () => {
    const call = { callId: "call_3", name: "read_file", arguments: '{"path":"src/a.ts"}' };
    const awaiting = sse(
      ["run.started", {}],
      ["tool.call", call],
      ["run.ended", { reason: "awaiting-tools" }],
    );
    expect(readToolCall({ status: 200, text: awaiting, path: "src/a.ts" })).toEqual({
      callId: "call_3",
    });
    expect(readToolCall({ status: 200, text: awaiting, path: "src/b.ts" })).toEqual({
      problem: 'tool call read_file {"path":"src/a.ts"}, expected read_file of src/b.ts',
    });
    const failed = sse([
      "run.ended",
      { reason: "failed", error: { code: "provider_unavailable", message: "Connection error." } },
    ]);
    expect(readToolCall({ status: 200, text: failed, path: "src/a.ts" })).toEqual({
      problem:
        'ended failed (provider_unavailable: {"code":"provider_unavailable","message":"Connection error."}), expected awaiting-tools',
    });
    expect(readToolCall({ status: 409, text: "{}", path: "src/a.ts" })).toEqual({
      problem: "answered 409: {}",
    });
    const twice = sse(
      ["tool.call", call],
      ["tool.call", call],
      ["run.ended", { reason: "awaiting-tools" }],
    );
    expect(readToolCall({ status: 200, text: twice, path: "src/a.ts" })).toEqual({
      problem: "2 tool calls, expected 1",
    });
  });

  it("accepts an answer that completes with text, and a direct call that completes", () => {
    expect(
      answerProblem({
        status: 200,
        text: sse(["text.delta", { text: "x" }], ["run.ended", { reason: "completed" }]),
      }),
    ).toBeNull();
    expect(answerProblem({ status: 200, text: sse(["run.ended", { reason: "completed" }]) })).toBe(
      "completed without text",
    );
    expect(answerProblem({ status: 200, text: sse(["text.delta", { text: "x" }]) })).toBe(
      "ended no run.ended, expected completed",
    );
    expect(
      directProblem({ status: 200, text: "event: response.completed\ndata: {}\n\n" }),
    ).toBeNull();
    expect(directProblem({ status: 200, text: "event: response.failed\ndata: {}\n\n" })).toBe(
      "no response.completed event",
    );
    expect(directProblem({ status: 500, text: "boom" })).toBe("answered 500: boom");
  });
});
