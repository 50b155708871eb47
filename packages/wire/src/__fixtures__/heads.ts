import { commitTurnPlan, createConversationHead, prepareTurn } from "@cursor/projection";
import type { ConversationHead } from "@cursor/projection";
import { createCursorPromptSpec, parseAgentRunRequest } from "@cursor/request";
import { createAssistantMessage, createToolResultMessage } from "@cursor/run";

const promptSpec = createCursorPromptSpec({});

/** A head with `turns` user turns (the first with a request context), each answered. */
export function headWithTurns({
  conversationId = "conv-state",
  turns = 2,
  pendingToolCall = false,
}: { conversationId?: string; turns?: number; pendingToolCall?: boolean } = {}): ConversationHead {
  let head = createConversationHead({ conversationId });
  for (let index = 0; index < turns; index += 1) {
    const parsed = parseAgentRunRequest({
      conversationId,
      runId: `run-${index}`,
      mode: "agent",
      action: { type: "user-message", message: { id: `m-${index}`, text: `question ${index}` } },
      ...(index === 0
        ? { requestContext: { rules: [{ name: "style", content: "Be brief." }] } }
        : {}),
    });
    if (!parsed.success) throw new Error("bad fixture request");
    const plan = prepareTurn({
      head,
      request: parsed.data,
      promptSpec,
      now: new Date(Date.UTC(2026, 0, 1, index)),
    });
    head = commitTurnPlan({ head, plan });
    const last = index === turns - 1;
    if (last && pendingToolCall) {
      head.history.append(
        createAssistantMessage({
          runId: `run-${index}`,
          step: 0,
          text: "Let me look.",
          reasoning: "Need the file.",
          toolCalls: [
            { index: 0, callId: `call-${index}`, name: "read_file", arguments: '{"path":"/a"}' },
          ],
        }),
      );
    } else {
      head.history.append(
        createAssistantMessage({
          runId: `run-${index}`,
          step: 0,
          toolCalls: [
            { index: 0, callId: `call-${index}`, name: "glob", arguments: '{"pattern":"*"}' },
          ],
        }),
      );
      head.history.append(
        createToolResultMessage({ callId: `call-${index}`, name: "glob", content: "a.ts" }),
      );
      head.history.append(
        createAssistantMessage({ runId: `run-${index}`, step: 1, text: `answer ${index}` }),
      );
    }
  }
  return head;
}
