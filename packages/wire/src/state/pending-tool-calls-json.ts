import { canonicalJson } from "@cursor/run";
import type { PendingToolCall } from "@cursor/run";
import type { HeadSnapshot } from "./head-snapshot.js";
import { findFromEnd } from "./head-snapshot.js";

function parsedArguments(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : { value };
  } catch {
    return { arguments: text };
  }
}

/**
 * `pending_tool_calls` entries (facts §3.5): per assistant message with unresolved calls, its
 * JSON in the AI-SDK-like shape the IDE's other backends write — reasoning, text, then one
 * `tool-call` part per pending call. Informational: hydration never trusts it (pending calls
 * come from the signed history).
 */
export function pendingToolCallsJson(head: HeadSnapshot): string[] {
  const byAssistant = new Map<string, PendingToolCall[]>();
  for (const call of head.pendingToolCalls) {
    const calls = byAssistant.get(call.assistantId) ?? [];
    calls.push(call);
    byAssistant.set(call.assistantId, calls);
  }
  return [...byAssistant].map(([assistantId, calls]) => {
    const assistant = findFromEnd(head, assistantId);
    const content: unknown[] = [];
    if (assistant?.kind === "assistant" && assistant.reasoning !== "") {
      content.push({ type: "reasoning", text: assistant.reasoning });
    }
    if (assistant?.kind === "assistant" && assistant.text !== "") {
      content.push({ type: "text", text: assistant.text });
    }
    for (const call of calls) {
      content.push({
        type: "tool-call",
        toolCallId: call.callId,
        toolName: call.name,
        args: parsedArguments(call.arguments),
      });
    }
    return canonicalJson({ id: assistantId, role: "assistant", content });
  });
}
