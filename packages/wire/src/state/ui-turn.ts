import { create, toBinary } from "@bufbuild/protobuf";
import { turnsOfRun } from "@cursor/projection";
import type { CanonicalMessage, ToolResultMessage } from "@cursor/run";
import type { ConversationStep, UserMessage } from "../gen/agent_v1_pb.js";
import {
  AgentConversationTurnStructureSchema,
  AssistantMessageSchema,
  ConversationStepSchema,
  ConversationTurnStructureSchema,
  ThinkingMessageSchema,
  UserMessageSchema,
} from "../gen/agent_v1_pb.js";
import { sha256, toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import { toolCallDisplay } from "../updates/tool-call-display.js";
import type { HeadSnapshot } from "./head-snapshot.js";

function blobOf(data: Uint8Array): ClientBlob {
  return { id: toHex(sha256(data)), data };
}

/**
 * The messages the run added after its own event messages, in history order: its assistant
 * steps and tool results. Scans back from the end of the epoch to the run's runtime message, so
 * the work is O(the run), not O(the conversation).
 */
function runMessages(head: HeadSnapshot, runId: string): CanonicalMessage[] {
  const eventMessageIds = new Set(turnsOfRun(head, runId).flatMap((turn) => turn.messageIds));
  const messages = head.messages;
  const collected: CanonicalMessage[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (eventMessageIds.has(message.id)) return collected.reverse();
    collected.push(message);
  }
  // The run's own messages are not in this epoch (compacted away): nothing to show.
  return [];
}

function step(message: ConversationStep["message"]): Uint8Array {
  return toBinary(ConversationStepSchema, create(ConversationStepSchema, { message }));
}

/**
 * The UI turn of a user-message run (facts §3.3): the user's message and the run's display steps
 * (thinking, assistant text, tool calls with their results), each its own blob, and the
 * `ConversationTurnStructure` blob that names them. Steps come from the committed history, so
 * a turn shows exactly what was stored.
 */
export function buildUiTurn({
  head,
  runId,
  userMessage,
  requestId,
}: {
  head: HeadSnapshot;
  runId: string;
  userMessage: UserMessage;
  requestId: string;
}): { turnId: string; blobs: ClientBlob[] } {
  const blobs: ClientBlob[] = [];
  const userBlob = blobOf(toBinary(UserMessageSchema, userMessage));
  blobs.push(userBlob);
  const messages = runMessages(head, runId);
  const results = new Map<string, ToolResultMessage>();
  for (const message of messages) {
    if (message.kind === "tool-result") results.set(message.callId, message);
  }
  const stepIds: Uint8Array[] = [];
  const addStep = (data: Uint8Array) => {
    const blob = blobOf(data);
    blobs.push(blob);
    stepIds.push(Buffer.from(blob.id, "hex"));
  };
  for (const message of messages) {
    if (message.kind !== "assistant") continue;
    if (message.reasoning !== "") {
      addStep(
        step({
          case: "thinkingMessage",
          value: create(ThinkingMessageSchema, { text: message.reasoning }),
        }),
      );
    }
    if (message.text !== "") {
      addStep(
        step({
          case: "assistantMessage",
          value: create(AssistantMessageSchema, { text: message.text }),
        }),
      );
    }
    for (const call of message.toolCalls) {
      const result = results.get(call.callId);
      const toolCall = toolCallDisplay({
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
        result:
          result === undefined ? undefined : { output: result.content, isError: result.isError },
      });
      if (toolCall !== undefined) addStep(step({ case: "toolCall", value: toolCall }));
    }
  }
  const turnBlob = blobOf(
    toBinary(
      ConversationTurnStructureSchema,
      create(ConversationTurnStructureSchema, {
        turn: {
          case: "agentConversationTurn",
          value: create(AgentConversationTurnStructureSchema, {
            userMessage: Buffer.from(userBlob.id, "hex"),
            steps: stepIds,
            requestId,
          }),
        },
      }),
    ),
  );
  blobs.push(turnBlob);
  return { turnId: turnBlob.id, blobs };
}
