import {
  allowedToolsForMode,
  compileBackgroundCompletionRuntime,
  compileInjectedContextRuntime,
  compileRequestContext,
  compileUserTurnRuntime,
} from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import type { PromptSpec } from "@cursor/run";
import type { ConversationHead } from "./conversation-head.js";
import { planBackgroundCompletions, planInjectedContext } from "./plan-runtime-events.js";
import { planSummarize } from "./plan-summarize.js";
import { planToolResults } from "./plan-tool-results.js";
import { planUserTurn } from "./plan-user-turn.js";
import { ConversationMismatchError } from "./projection-errors.js";
import type { TurnPlan } from "./turn-plan.js";

/**
 * Decides what one validated agent run request appends to the conversation and whether the
 * model runs. Pure and synchronous: reads `head`, changes nothing; the plan is validated against
 * the history (`history.check`) before it is returned. Compiles the request context and the
 * runtime messages with @cursor/request; `now` is the turn's clock when the request has no
 * `timestamp` (it only shows in the runtime text, never in an identity).
 *
 * Throws a `ProjectionConflictError` (409) when the request does not fit the head: another
 * conversation, an `expectedRunId` that is not the latest run, tool results for calls the run
 * is not waiting for, a user message under a run id that delivered another event.
 */
export function prepareTurn({
  head,
  request,
  promptSpec,
  now,
}: {
  head: ConversationHead;
  request: AgentRunRequest;
  promptSpec: PromptSpec;
  now: Date;
}): TurnPlan {
  if (request.conversationId !== head.conversationId) {
    throw new ConversationMismatchError({
      message: `the request is for conversation ${request.conversationId}, the head is ${head.conversationId}`,
      conversationId: head.conversationId,
      requestConversationId: request.conversationId,
    });
  }
  const plan = planAction({ head, request, now });
  if (plan.next !== "call-model") return plan;
  // The mode's tool restriction matters only to a model call: attached here, once.
  return Object.freeze({ ...plan, allowedTools: allowedToolsForMode(request.mode, promptSpec) });
}

function planAction({
  head,
  request,
  now,
}: {
  head: ConversationHead;
  request: AgentRunRequest;
  now: Date;
}): TurnPlan {
  const { action, runId } = request;
  switch (action.type) {
    case "user-message":
      return planUserTurn({
        head,
        runId,
        userTurn: {
          clientMessageId: action.message.id,
          requestContext: compileRequestContext(request.requestContext),
          runtime: compileUserTurnRuntime({
            mode: request.mode,
            message: action.message,
            // A Date (the same instant the string names): a compiler checks it without a schema.
            timestamp: request.timestamp === undefined ? now : new Date(request.timestamp),
            timeZone: request.requestContext?.env?.timeZone,
          }),
        },
      });
    case "tool-results":
      return planToolResults({ head, runId, results: action.results });
    case "inject-context":
      return planInjectedContext({
        head,
        runId,
        injection: {
          injectionId: action.injectionId,
          expectedRunId: action.expectedRunId,
          runtime: compileInjectedContextRuntime({ text: action.text }),
        },
      });
    case "background-completion":
      return planBackgroundCompletions({
        head,
        runId,
        completions: action.completions.map((completion) => ({
          kind: completion.kind,
          taskId: completion.taskId,
          toolCallId: completion.toolCallId,
          runtime: compileBackgroundCompletionRuntime(completion),
        })),
      });
    case "summarize":
      return planSummarize({ head, runId });
    default: {
      const exhaustive: never = action;
      throw new Error(`unknown action ${JSON.stringify(exhaustive)}`);
    }
  }
}
