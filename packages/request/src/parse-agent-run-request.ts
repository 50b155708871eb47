import type { ValidationIssue } from "./errors.js";
import type { AgentRunRequest } from "./agent-run-request-schema.js";
import { agentRunRequestSchema } from "./agent-run-request-schema.js";
import { rememberValidRequestContext } from "./compile-request-context.js";
import { rememberValidUserMessage } from "./compile-user-turn-runtime.js";
import { toValidationIssues } from "./validation-issues.js";

export type ParseAgentRunRequestResult =
  | { readonly success: true; readonly data: AgentRunRequest }
  | { readonly success: false; readonly issues: ValidationIssue[] };

/**
 * Validates an agent run request (the parsed JSON body of `POST /v1/runs`). On failure, lists
 * every offending path (`action.message.selectedContext[2].path`, `(root)` for the body itself);
 * unknown fields, action types and modes are errors, never ignored.
 */
export function parseAgentRunRequest(input: unknown): ParseAgentRunRequestResult {
  // reportInput lets the messages tell a missing field from a wrong one; the inputs stay inside.
  const result = agentRunRequestSchema.safeParse(input, { reportInput: true });
  if (result.success) {
    // Its request context is compiled next (every turn compares it with the stored one): frozen
    // and known as valid, it is not parsed a second time.
    if (result.data.requestContext !== undefined) {
      rememberValidRequestContext(result.data.requestContext);
    }
    // Its user message is rendered into the turn's runtime message next: the same.
    if (result.data.action.type === "user-message") {
      rememberValidUserMessage(result.data.action.message);
    }
    return { success: true, data: result.data };
  }
  return { success: false, issues: toValidationIssues(result.error) };
}
