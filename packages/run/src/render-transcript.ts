import type { CanonicalMessage, ContentPart } from "./canonical-message.js";
import { truncateToolResult } from "./truncate-tool-result.js";

/** Tool results are cut harder in a transcript than in a model request: the gist is enough. */
export const defaultTranscriptToolResultChars = 4_000;

function renderParts(parts: readonly ContentPart[]): string {
  return parts
    .map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType} omitted]`))
    .join("\n");
}

/**
 * A plain-text rendering of one canonical message for a summariser. Deterministic; reasoning
 * and opaque replay state are left out (only the answer and the actions matter for a summary).
 */
export function renderMessage(
  message: CanonicalMessage,
  maxToolResultChars: number = defaultTranscriptToolResultChars,
): string {
  switch (message.kind) {
    case "request-context":
      return `[request context]\n${message.text}`;
    case "summary":
      return `[summary of earlier conversation]\n${message.text}`;
    case "runtime":
      return `[user turn: ${message.runtimeKind}]\n${renderParts(message.content)}`;
    case "user":
      return `[user]\n${renderParts(message.content)}`;
    case "assistant": {
      const calls = [...message.toolCalls]
        .sort((a, b) => a.index - b.index)
        .map((call) => `[tool call ${call.name} ${call.callId}] ${call.arguments}`);
      return ["[assistant]", ...(message.text === "" ? [] : [message.text]), ...calls].join("\n");
    }
    case "tool-result": {
      const status = message.isError ? " (error)" : "";
      const image = message.image ? `\n[image ${message.image.mimeType} omitted]` : "";
      return `[tool result ${message.name} ${message.callId}${status}]\n${truncateToolResult(
        message.content,
        maxToolResultChars,
      )}${image}`;
    }
    default: {
      const exhaustive: never = message;
      throw new Error(`unknown message kind ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * Splits messages into turns: each turn is a run of user-side messages (context, runtime, user,
 * summary) followed by the assistant messages and tool results that answered them.
 */
export function splitTurns(messages: readonly CanonicalMessage[]): CanonicalMessage[][] {
  const turns: CanonicalMessage[][] = [];
  let turn: CanonicalMessage[] = [];
  let answered = false;
  for (const message of messages) {
    const userSide = message.role === "user";
    if (userSide && answered) {
      turns.push(turn);
      turn = [];
      answered = false;
    }
    if (!userSide) answered = true;
    turn.push(message);
  }
  if (turn.length > 0) turns.push(turn);
  return turns;
}
