import { createCursorPromptSpec, parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { commitTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import { prepareTurn } from "./prepare-turn.js";

const promptSpec = createCursorPromptSpec({ modelDisplayName: "Test Model" });
const now = new Date("2026-11-29T09:00:00Z");

function userMessage(runId: string, id: string, text: string): AgentRunRequest {
  const parsed = parseAgentRunRequest({
    conversationId: "c1",
    mode: "agent",
    runId,
    action: { type: "user-message", message: { id, text } },
    requestContext: { rules: [{ name: "style", content: "Prefer small functions." }] },
  });
  if (!parsed.success) throw new Error(JSON.stringify(parsed.issues));
  return parsed.data;
}

describe("commitTurnPlan", () => {
  it("appends the very messages the plan validated: none is parsed or hashed a second time", () => {
    const head = createConversationHead({ conversationId: "c1" });
    const plan = prepareTurn({
      head,
      request: userMessage("r1", "m1", "Fix the bug"),
      promptSpec,
      now,
    });
    expect(plan.appended).toHaveLength(2);
    const committed = commitTurnPlan({ head, plan });
    // A second validation would have stored fresh frozen copies instead.
    expect(committed.history.messages).toHaveLength(2);
    committed.history.messages.forEach((message, index) =>
      expect(message).toBe(plan.appended[index]),
    );
  });
});
