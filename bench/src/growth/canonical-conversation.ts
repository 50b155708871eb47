import { commitTurnPlan, createConversationHead, prepareTurn } from "@cursor/projection";
import type { ConversationHead, TurnPlan } from "@cursor/projection";
import { parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import { createAssistantMessage, nextAssistantStep } from "@cursor/run";
import type { AssistantMessage, CanonicalMessage, PromptSpec } from "@cursor/run";
import type { FakeReply, SessionEvent } from "@cursor/testkit";

type RunEventOf<E> = E extends { type: "restart" } ? never : E;
export type RunSessionEvent = RunEventOf<SessionEvent>;

/** What one gateway request did to the conversation, for the measurements around it. */
export interface AppliedEvent {
  readonly request: AgentRunRequest;
  readonly plan: TurnPlan;
  /** Messages the request added: the plan's new messages, then the model's answer (if any). */
  readonly added: readonly CanonicalMessage[];
  /** Milliseconds in `prepareTurn` and in appending the plan to the history. */
  readonly prepareMs: number;
  readonly appendMs: number;
  /**
   * Called between the append and the model's answer (where the gateway projects and calls the
   * provider): the caller projects and serialises the request there.
   */
  readonly modelCalled: boolean;
}

function assistantFromReply({
  reply,
  runId,
  step,
}: {
  reply: FakeReply;
  runId: string;
  step: number;
}): AssistantMessage {
  switch (reply.type) {
    case "text":
      return createAssistantMessage({ runId, step, text: reply.text });
    case "tool-calls":
      return createAssistantMessage({
        runId,
        step,
        text: reply.text ?? "",
        toolCalls: reply.calls.map((call, index) => ({
          index,
          callId: call.callId ?? `call-${runId}-${step}-${index}`,
          name: call.name,
          arguments: call.arguments,
        })),
      });
    case "reasoning": {
      const then = assistantFromReply({ reply: reply.then, runId, step });
      return { ...then, reasoning: reply.redacted ? "" : reply.reasoning };
    }
    default:
      throw new Error(`a generated session does not script ${reply.type} replies`);
  }
}

/**
 * A conversation kept the way the gateway keeps it (a projection head over a HistoryLog), fed
 * with generated session events without HTTP, a store or a provider: each request is parsed,
 * planned with `prepareTurn`, appended, and answered with the session's scripted reply. For
 * measuring per-turn costs at history lengths a live session would take hours to reach.
 * Sessions must be generated without compaction and restarts.
 */
export class CanonicalConversation {
  readonly promptSpec: PromptSpec;
  head: ConversationHead;
  userTurns = 0;

  constructor({ conversationId, promptSpec }: { conversationId: string; promptSpec: PromptSpec }) {
    this.promptSpec = promptSpec;
    this.head = createConversationHead({ conversationId });
  }

  /**
   * Applies one event. `beforeAnswer` runs after the plan is appended and before the model's
   * answer is: where the gateway projects the history and serialises the provider request.
   */
  apply(event: RunSessionEvent, beforeAnswer?: (plan: TurnPlan) => void): AppliedEvent {
    const parsed = parseAgentRunRequest(event.body);
    if (!parsed.success) {
      throw new Error(`event ${event.index} is not a valid run request`);
    }
    const request = parsed.data;
    const t0 = performance.now();
    const plan = prepareTurn({
      head: this.head,
      request,
      promptSpec: this.promptSpec,
      now: new Date(Date.parse(event.body.timestamp)),
    });
    const t1 = performance.now();
    if (plan.next === "compact") throw new Error("generate the session without compaction");
    this.head = commitTurnPlan({ head: this.head, plan });
    const t2 = performance.now();
    const added: CanonicalMessage[] = [...plan.appended];
    const reply = event.replies[0];
    const modelCalled = plan.next === "call-model" && reply !== undefined;
    if (modelCalled) {
      beforeAnswer?.(plan);
      const answer = assistantFromReply({
        reply,
        runId: plan.runId,
        step: nextAssistantStep(this.head.history, plan.runId),
      });
      this.head.history.append(answer);
      added.push(answer);
    }
    if (event.type === "user-turn") this.userTurns += 1;
    return { request, plan, added, prepareMs: t1 - t0, appendMs: t2 - t1, modelCalled };
  }
}
