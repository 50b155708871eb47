import type { ValidationIssue } from "./errors.js";
import type { AgentRunRequest } from "./agent-run-request-schema.js";
import { agentRunRequestSchema } from "./agent-run-request-schema.js";
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
  if (result.success) return { success: true, data: result.data };
  return { success: false, issues: toValidationIssues(result.error) };
}
