import { ConnectError } from "../connect/connect-error.js";
import type {
  AgentServerMessage,
  ExecClientControlMessage,
  ExecClientMessage,
  InteractionResponse,
  TodoItem,
  ToolCall,
} from "../gen/agent_v1_pb.js";

/** One tool call of a round, as the model made it. */
export interface ToolRoundCall {
  readonly callId: string;
  readonly name: string;
  /** The JSON text the model produced. */
  readonly arguments: string;
  /**
   * The call's result when it settled before (a round resumed after a reconnect or a restart):
   * the bridge returns it as it is and runs nothing, so no call runs twice.
   */
  readonly settled?: { readonly output: string; readonly isError: boolean } | undefined;
}

/** One call's result, as the model will read it. */
export interface ToolRoundResult {
  readonly callId: string;
  readonly output: string;
  readonly isError: boolean;
  /** The completed `ToolCall` the IDE shows (args and result); absent: derived from the args. */
  readonly display?: ToolCall | undefined;
}

/** What a bridge gets of the run stream it serves. */
export interface ToolBridgeSession {
  readonly conversationId: string;
  readonly runId: string;
  /** Sends `exec_server_message` / `interaction_query` / control messages on the downlink. */
  send(message: AgentServerMessage): void;
  /** Aborted when the run is cancelled or the client is gone (pending execs get `abort`). */
  readonly signal: AbortSignal;
  /** The next id of an exec or interaction query, unique in the run stream. */
  nextExecId(): number;
  /** The highest exec id issued in the run stream so far (0 before the first). */
  lastExecId(): number;
  /** One call of the round settled: the turn publishes a checkpoint that records it. */
  settled(result: ToolRoundResult): void;
  /** The conversation's todo list, kept by the gateway in the state (`todo_write`). */
  readonly todos: { get(): readonly TodoItem[]; set(todos: readonly TodoItem[]): void };
  /** Exposed MCP tool names of the request context → server and the tool's own name. */
  readonly mcpTools: ReadonlyMap<string, { readonly server: string; readonly tool: string }>;
}

/**
 * Runs tool rounds on the IDE. The session plugs one in per run stream: it hands every round
 * of the model loop to `runRound` and every exec / interaction result from the client to
 * `deliver`, then continues the loop with the results (a `tool-results` request).
 */
export interface ToolBridge {
  runRound(calls: readonly ToolRoundCall[]): Promise<readonly ToolRoundResult[]>;
  /** A client result; throws a `ConnectError` when it answers nothing pending. */
  deliver(
    message:
      | { readonly case: "exec"; readonly value: ExecClientMessage }
      | { readonly case: "execControl"; readonly value: ExecClientControlMessage }
      | { readonly case: "interactionResponse"; readonly value: InteractionResponse },
  ): void;
}

export type ToolBridgeFactory = (session: ToolBridgeSession) => ToolBridge;

/** The result text of a call while tools do not run in the IDE (byte-stable for replays). */
export function toolNotAvailableText(name: string): string {
  return `Tool ${name} is not available: this gateway does not run tools in the editor yet. Answer without it, or tell the user what you would do with it.`;
}

/**
 * The bridge until tools run in the IDE: every call gets an error result saying so, so the
 * model answers in text and the round is closed in the history (no pending calls left behind).
 * It sends nothing to the client, so any exec or interaction result is unexpected.
 */
export const unavailableToolBridge: ToolBridgeFactory = () => ({
  runRound: (calls) =>
    Promise.resolve(
      calls.map((call) => ({
        callId: call.callId,
        output: toolNotAvailableText(call.name),
        isError: true,
      })),
    ),
  deliver: (message) => {
    throw new ConnectError({ code: "failed_precondition", message: unexpectedResult(message) });
  },
});

function unexpectedResult(message: Parameters<ToolBridge["deliver"]>[0]): string {
  switch (message.case) {
    case "exec":
      return `exec_client_message ${message.value.id} (exec_id ${message.value.execId || "none"}) answers no pending exec`;
    case "execControl": {
      const control = message.value.message;
      return `exec_client_control_message ${control.case ?? "of unknown kind"}${
        control.value === undefined ? "" : ` ${control.value.id}`
      } answers no pending exec`;
    }
    case "interactionResponse":
      return `interaction_response ${message.value.id} answers no pending interaction query`;
    default: {
      const exhaustive: never = message;
      throw new Error(`unknown client result ${JSON.stringify(exhaustive)}`);
    }
  }
}
