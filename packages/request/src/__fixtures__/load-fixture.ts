import { readFileSync } from "node:fs";
import type { AgentRunRequest } from "../agent-run-request-schema.js";
import type { UserMessageAction } from "../agent-action-schema.js";
import type { RequestContextInput } from "../request-context-schema.js";

/** A fresh copy of the full user-message request fixture (tests mutate their copy). */
export function loadAgentRunRequest(): AgentRunRequest & {
  action: UserMessageAction;
  requestContext: RequestContextInput;
} {
  return JSON.parse(readFileSync(new URL("./agent-run-request.json", import.meta.url), "utf8"));
}
