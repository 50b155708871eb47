import { canonicalJson } from "@cursor/run";
import type { PendingToolCall } from "@cursor/run";
import { z } from "zod";
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

/** A call of an open round that has its result already (the text the model will read). */
export interface SettledToolResult {
  readonly output: string;
  readonly isError: boolean;
}

/**
 * `pending_tool_calls` entries (facts §3.5): per assistant message with unresolved calls, its
 * JSON in the AI-SDK-like shape the IDE's other backends write — reasoning, text, then one
 * `tool-call` part per pending call. The calls of the open round that already have their result
 * carry it under `providerOptions.cursorGateway.settled`, so a gateway that restarted mid-round
 * continues it without running them again. Hydration never trusts the entries for history
 * (pending calls come from the signed history); only these results are read back, and only for
 * calls the history has pending.
 */
export function pendingToolCallsJson(
  head: HeadSnapshot,
  settled: ReadonlyMap<string, SettledToolResult> = new Map(),
): string[] {
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
    const results: unknown[] = [];
    for (const call of calls) {
      content.push({
        type: "tool-call",
        toolCallId: call.callId,
        toolName: call.name,
        args: parsedArguments(call.arguments),
      });
      const result = settled.get(call.callId);
      if (result !== undefined) {
        results.push({ toolCallId: call.callId, output: result.output, isError: result.isError });
      }
    }
    return canonicalJson({
      id: assistantId,
      role: "assistant",
      content,
      ...(results.length === 0 ? {} : { providerOptions: { cursorGateway: { settled: results } } }),
    });
  });
}

const settledEntrySchema = z.object({
  id: z.string(),
  providerOptions: z
    .object({
      cursorGateway: z
        .object({
          settled: z.array(
            z.object({ toolCallId: z.string(), output: z.string(), isError: z.boolean() }),
          ),
        })
        .optional(),
    })
    .optional(),
});

/**
 * The settled results the entries carry, keyed `<assistant id>\0<call id>`. Entries that are not
 * the gateway's (another backend's, or malformed) contribute nothing.
 */
export function settledToolResults(entries: readonly string[]): Map<string, SettledToolResult> {
  const results = new Map<string, SettledToolResult>();
  for (const entry of entries) {
    let value: unknown;
    try {
      value = JSON.parse(entry);
    } catch {
      continue;
    }
    const parsed = settledEntrySchema.safeParse(value);
    if (!parsed.success) continue;
    for (const result of parsed.data.providerOptions?.cursorGateway?.settled ?? []) {
      results.set(`${parsed.data.id}\u0000${result.toolCallId}`, {
        output: result.output,
        isError: result.isError,
      });
    }
  }
  return results;
}
