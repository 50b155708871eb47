import { defaultReserveTokens } from "@cursor/run";
import { countTokens } from "@cursor/testkit";
import type { AgentSession } from "@cursor/testkit";

/**
 * Rough token count of everything a session adds to the history (actions and replies; retries
 * and duplicate deliveries add nothing). Only used to size the context window.
 */
function estimateSessionTokens(session: AgentSession): number {
  let tokens = 0;
  for (const event of session.events) {
    if (event.type === "restart" || event.type === "retry") continue;
    if (event.type === "background-completion" && event.duplicate) continue;
    tokens += countTokens(JSON.stringify(event.body.action));
    tokens += countTokens(JSON.stringify(event.replies));
  }
  return tokens;
}

/**
 * A context window that makes the gateway compact exactly once: the budget (window minus the
 * reserve) is reached at about `fraction` of the session, and what follows the compaction is
 * smaller than the budget again.
 */
export function contextWindowForOneCompaction(session: AgentSession, fraction = 0.95): number {
  return Math.max(
    4096,
    defaultReserveTokens + Math.round(estimateSessionTokens(session) * fraction),
  );
}
