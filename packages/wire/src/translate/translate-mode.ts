import type { AgentMode as JsonAgentMode } from "@cursor/request";
import { ConnectError } from "../connect/connect-error.js";
import { AgentMode } from "../gen/agent_v1_pb.js";

const supported: ReadonlyMap<AgentMode, JsonAgentMode> = new Map([
  [AgentMode.AGENT, "agent"],
  [AgentMode.ASK, "ask"],
  [AgentMode.PLAN, "plan"],
  [AgentMode.DEBUG, "debug"],
]);

/** The Cursor mode of a JSON-contract mode (for the state's `mode`). */
export function cursorMode(mode: JsonAgentMode): AgentMode {
  switch (mode) {
    case "agent":
      return AgentMode.AGENT;
    case "ask":
      return AgentMode.ASK;
    case "plan":
      return AgentMode.PLAN;
    case "debug":
      return AgentMode.DEBUG;
    default: {
      const exhaustive: never = mode;
      throw new Error(`unknown mode ${String(exhaustive)}`);
    }
  }
}

/**
 * The turn's mode: the user message's, else the conversation state's, else agent. AGENT, ASK,
 * PLAN and DEBUG map to the JSON contract's modes; any other mode is `unimplemented`.
 */
export function translateMode({
  messageMode,
  stateMode,
}: {
  messageMode: AgentMode | undefined;
  stateMode: AgentMode | undefined;
}): JsonAgentMode {
  const chosen =
    messageMode !== undefined && messageMode !== AgentMode.UNSPECIFIED
      ? messageMode
      : stateMode !== undefined && stateMode !== AgentMode.UNSPECIFIED
        ? stateMode
        : AgentMode.AGENT;
  const mode = supported.get(chosen);
  if (mode === undefined) {
    const name = AgentMode[chosen] ?? `${chosen}`;
    throw new ConnectError({
      code: "unimplemented",
      message: `mode ${name} is not supported (AGENT, ASK, PLAN, DEBUG)`,
      detail: {
        kind: "custom-message",
        title: "Mode not supported",
        detail: `This gateway runs Agent, Ask, Plan and Debug; ${name.toLowerCase()} mode is not supported.`,
        retryable: false,
      },
    });
  }
  return mode;
}
