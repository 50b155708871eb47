import { InvalidHistoryError } from "@cursor/run";
import { appendTurns } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";
import type { TurnPlan } from "./turn-plan.js";

/**
 * The head after a plan's messages reached the history: its new turn records added and
 * `lastRunId` set to the request's run. Does not touch the history; call it in the same store
 * transaction that commits the plan's initial messages (the model loop commits them together
 * with the first assistant message), never for a plan whose messages were not committed.
 */
export function recordTurnPlan({
  head,
  plan,
}: {
  head: ConversationHead;
  plan: TurnPlan;
}): ConversationHead {
  return Object.freeze({
    conversationId: head.conversationId,
    history: head.history,
    turns: appendTurns(head.turns, plan.newTurns),
    lastRunId: plan.acceptedRunId,
  });
}

/**
 * Appends the plan's initial messages to `head.history` (atomically: all or none) and records
 * the plan. For callers that commit initial messages themselves instead of through the model
 * loop: plans without a model call, tests, tools. Refuses a plan made for another epoch.
 */
export function commitTurnPlan({
  head,
  plan,
}: {
  head: ConversationHead;
  plan: TurnPlan;
}): ConversationHead {
  if (plan.epoch !== head.history.epoch) {
    throw new InvalidHistoryError({
      message: `the plan was made for epoch ${plan.epoch}, the history is at epoch ${head.history.epoch}`,
    });
  }
  // The messages `history.check` validated, hashed and froze when the plan was made: appending
  // them costs neither a parse nor a hash (the initial messages they came from would, again).
  // The ones left out were already in the history: appending them would change nothing.
  head.history.append(plan.appended);
  return recordTurnPlan({ head, plan });
}
