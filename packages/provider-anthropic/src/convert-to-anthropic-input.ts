import type { ModelMessage, Warning } from "@cursor/run";
import type { AnthropicMessage, AnthropicUserBlock } from "./anthropic-api.js";
import { convertAnthropicAssistantContent } from "./convert-anthropic-assistant-content.js";
import { convertAnthropicToolResult } from "./convert-anthropic-tool-result.js";
import { convertAnthropicUserContent } from "./convert-anthropic-user-content.js";

/**
 * Projects the canonical history onto strict user / assistant alternation (the API combines
 * consecutive turns of one role anyway; doing it here keeps every rule checkable on the body).
 * Consecutive user-side messages (tool results, request context, runtime, summary, user, tail)
 * merge into one user message whose blocks follow canonical order; consecutive assistant
 * messages merge likewise. Merging only ever appends blocks to the newest message, so the flat
 * list of content blocks of turn N is a prefix of turn N+1's even when a later turn adds to the
 * message that ended turn N. Tool results come first in their user message because canonical
 * order puts them right after their assistant message, as the API requires.
 *
 * Pure: builds new objects only and never touches the (frozen) request.
 */
export function convertToAnthropicInput(messages: readonly ModelMessage[]): {
  messages: AnthropicMessage[];
  warnings: Warning[];
  /** For each wire assistant message (by index), the path of the request message it renders. */
  assistantSources: ReadonlyMap<number, string>;
} {
  const wire: AnthropicMessage[] = [];
  const warnings: Warning[] = [];
  const sources = new Map<number, string>();

  const appendUserBlocks = (blocks: readonly AnthropicUserBlock[]) => {
    if (blocks.length === 0) return;
    const last = wire[wire.length - 1];
    if (last?.role === "user") last.content.push(...blocks);
    else wire.push({ role: "user", content: [...blocks] });
  };

  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case "user": {
        const converted = convertAnthropicUserContent({ message, path });
        warnings.push(...converted.warnings);
        appendUserBlocks(converted.blocks);
        break;
      }
      case "tool": {
        const converted = convertAnthropicToolResult({ message, path });
        warnings.push(...converted.warnings);
        appendUserBlocks([converted.block]);
        break;
      }
      case "assistant": {
        const converted = convertAnthropicAssistantContent({ message, path });
        warnings.push(...converted.warnings);
        // No blocks: nothing the API accepts (empty, or thinking only). Leaving it out is
        // deterministic, so the user messages around it merge the same way on every turn.
        if (converted.blocks.length === 0) break;
        const last = wire[wire.length - 1];
        // The API combines consecutive assistant turns into one; doing it here means the rules
        // (thinking first in an open round, no final thinking block) are checked on what the
        // API sees. Like the user-side merge, it only appends blocks.
        if (last?.role === "assistant") {
          last.content.push(...converted.blocks);
        } else {
          wire.push({ role: "assistant", content: [...converted.blocks] });
          sources.set(wire.length - 1, path);
        }
        break;
      }
      default: {
        const exhaustive: never = message;
        throw new TypeError(`unknown model message ${JSON.stringify(exhaustive)}`);
      }
    }
  });
  return { messages: wire, warnings, assistantSources: sources };
}
