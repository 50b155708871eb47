import {
  compileRequestContext,
  createCursorPromptSpec,
  parseAgentRunRequest,
} from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import { createAssistantMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { commitTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";
import { prepareTurn } from "./prepare-turn.js";
import { ConversationMismatchError, ProjectionConflictError } from "./projection-errors.js";

const promptSpec = createCursorPromptSpec({ modelDisplayName: "Test Model" });
const now = new Date("2026-11-29T09:00:00Z");
const context = { rules: [{ name: "style", content: "Prefer small functions." }] };

function request(body: Record<string, unknown>): AgentRunRequest {
  const parsed = parseAgentRunRequest({ conversationId: "c1", mode: "agent", ...body });
  if (!parsed.success) throw new Error(JSON.stringify(parsed.issues));
  return parsed.data;
}

function userMessage(runId: string, id: string, text: string, extra: Record<string, unknown> = {}) {
  return request({
    runId,
    action: { type: "user-message", message: { id, text } },
    requestContext: context,
    ...extra,
  });
}

describe("prepareTurn", () => {
  it("compiles the request context and the runtime message of a user turn", () => {
    const head = createConversationHead({ conversationId: "c1" });
    const plan = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Fix the bug"),
      promptSpec,
      now,
    });
    const digest = compileRequestContext(context)!.digest;
    expect(plan.initialMessages.map((m) => m.id)).toEqual([
      `request-context:ctx.m1.${digest.slice(0, 16)}`,
      expect.stringMatching(/^runtime:turn\.m1\.[0-9a-f]{16}$/),
    ]);
    const runtime = plan.initialMessages[1]!;
    expect(runtime.kind === "runtime" && runtime.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("<user_query>\nFix the bug\n</user_query>"),
    });
    expect(plan.next === "call-model" && plan.allowedTools).toContain("read_file");
  });

  it("maps a resend at a later time to the same event, keeping the original clock", () => {
    let head: ConversationHead = createConversationHead({ conversationId: "c1" });
    const first = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Fix the bug", { timestamp: "2026-11-29T10:00:00+01:00" }),
      promptSpec,
      now,
    });
    head = commitTurnPlan({ head, plan: first });
    const resend = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Fix the bug", { timestamp: "2026-11-29T10:07:00+01:00" }),
      promptSpec,
      now,
    });
    expect(resend.retry).toBe(true);
    expect(resend.appended).toEqual([]);
    expect(resend.initialMessages).toEqual(first.initialMessages);
    const edited = prepareTurn({
      head,
      request: userMessage("r2", "m1", "Fix the bug, please"),
      promptSpec,
      now,
    });
    expect(edited.retry).toBe(false);
    expect(edited.appended.map((m) => m.kind)).toEqual(["runtime"]);
  });

  it("plans every action type", () => {
    let head: ConversationHead = createConversationHead({ conversationId: "c1" });
    head = commitTurnPlan({
      head,
      plan: prepareTurn({ head, request: userMessage("r1", "m1", "go"), promptSpec, now }),
    });
    const background = prepareTurn({
      head,
      request: request({
        runId: "r2",
        action: {
          type: "background-completion",
          completions: [{ taskId: "t1", kind: "shell", status: "success", title: "npm test" }],
        },
      }),
      promptSpec,
      now,
    });
    expect(background.appended.map((m) => m.id)).toEqual(["runtime:bg.shell.t1.-"]);
    const injection = prepareTurn({
      head,
      request: request({
        runId: "r2",
        action: {
          type: "inject-context",
          injectionId: "i1",
          expectedRunId: "r1",
          text: "lint ran",
        },
      }),
      promptSpec,
      now,
    });
    expect(injection.appended.map((m) => m.id)).toEqual(["runtime:inject.i1"]);
    const summarize = prepareTurn({
      head,
      request: request({ runId: "r3", action: { type: "summarize" } }),
      promptSpec,
      now,
    });
    expect(summarize).toMatchObject({ next: "compact", reason: "manual" });
    expect(() =>
      prepareTurn({
        head,
        request: request({
          runId: "r1",
          action: { type: "tool-results", results: [{ callId: "call_x", output: "x" }] },
        }),
        promptSpec,
        now,
      }),
    ).toThrow(ProjectionConflictError);
  });

  it("attaches the mode's allowed tools once, to plans that call the model only", () => {
    let head: ConversationHead = createConversationHead({ conversationId: "c1" });
    const ask = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Explain", { mode: "ask" }),
      promptSpec,
      now,
    });
    expect(ask.next).toBe("call-model");
    const allowed = ask.next === "call-model" ? ask.allowedTools : undefined;
    expect(allowed).toContain("read_file");
    expect(allowed).not.toContain("edit_file");
    expect(Object.isFrozen(ask)).toBe(true);
    head = commitTurnPlan({ head, plan: ask });
    head.history.append(createAssistantMessage({ runId: "r1", step: 0, text: "done" }));
    const retried = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Explain", { mode: "ask" }),
      promptSpec,
      now,
    });
    expect(retried.next).toBe("done");
    expect(retried).not.toHaveProperty("allowedTools");
  });

  it("refuses a request for another conversation", () => {
    const head = createConversationHead({ conversationId: "c2" });
    let caught: unknown;
    try {
      prepareTurn({ head, request: userMessage("r1", "m1", "go"), promptSpec, now });
    } catch (error) {
      caught = error;
    }
    expect(ConversationMismatchError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ conversationId: "c2", requestConversationId: "c1" });
  });
});
