import { deepFreeze, SequenceMemo } from "@cursor/run";
import type { ModelMessage, Warning } from "@cursor/run";
import type {
  AnthropicAssistantBlock,
  AnthropicMessage,
  AnthropicUserBlock,
} from "./anthropic-api.js";
import { convertAnthropicAssistantContent } from "./convert-anthropic-assistant-content.js";
import { convertAnthropicToolResult } from "./convert-anthropic-tool-result.js";
import { convertAnthropicUserContent } from "./convert-anthropic-user-content.js";

type MessageBlocks =
  | { readonly side: "user"; readonly blocks: readonly AnthropicUserBlock[] }
  | { readonly side: "assistant"; readonly blocks: readonly AnthropicAssistantBlock[] };

/** A message whose conversion warned: its warnings (which name its index) are held with it. */
class ConvertedWithWarnings {
  constructor(
    readonly converted: MessageBlocks,
    readonly warnings: readonly Warning[],
  ) {}
}

type HeldConversion = MessageBlocks | ConvertedWithWarnings;

function convertMessage(
  message: ModelMessage,
  path: string,
): {
  converted: MessageBlocks;
  warnings: readonly Warning[];
} {
  switch (message.role) {
    case "user": {
      const { blocks, warnings } = convertAnthropicUserContent({ message, path });
      return { converted: { side: "user", blocks }, warnings };
    }
    case "tool": {
      const { block, warnings } = convertAnthropicToolResult({ message, path });
      return { converted: { side: "user", blocks: [block] }, warnings };
    }
    case "assistant": {
      const { blocks, warnings } = convertAnthropicAssistantContent({ message, path });
      return { converted: { side: "assistant", blocks }, warnings };
    }
    default: {
      const exhaustive: never = message;
      throw new TypeError(`unknown model message ${JSON.stringify(exhaustive)}`);
    }
  }
}

// A message's blocks depend on that (frozen) message and its index only (the index names it in
// warnings), so they are converted once and shared, frozen, by every later body: a call converts
// only what the history added since the previous one. Merging and cache markers copy the arrays
// and the marked blocks; they never write to a shared block. The memo lives as long as the
// conversation's head, so it is held at the least heap: per conversation (`SequenceMemo`: two
// pointers per message), the blocks without a wrapper, a wrapper only for a message that warned.
const convertedMessages = new SequenceMemo<ModelMessage, HeldConversion>();

/** What the memo holds for `messages[index]` (tests: its form is what a conversation pays). */
export function heldConversionOf(
  messages: readonly ModelMessage[],
  index: number,
): HeldConversion | undefined {
  return convertedMessages.held(messages, index);
}

function convert(message: ModelMessage, index: number): HeldConversion {
  const { converted, warnings } = convertMessage(message, `messages[${index}]`);
  const frozen = deepFreeze(converted);
  return warnings.length === 0 ? frozen : new ConvertedWithWarnings(frozen, warnings);
}

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
 * Pure: builds new message objects and arrays only and never touches the (frozen) request; the
 * blocks are frozen and shared between calls.
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

  convertedMessages.map(messages, convert).forEach((held, index) => {
    const converted = held instanceof ConvertedWithWarnings ? held.converted : held;
    if (held instanceof ConvertedWithWarnings) {
      for (const warning of held.warnings) warnings.push(warning);
    }
    if (converted.side === "user") {
      appendUserBlocks(converted.blocks);
      return;
    }
    // No blocks: nothing the API accepts (empty, or thinking only). Leaving it out is
    // deterministic, so the user messages around it merge the same way on every turn.
    if (converted.blocks.length === 0) return;
    const last = wire[wire.length - 1];
    // The API combines consecutive assistant turns into one; doing it here means the rules
    // (thinking first in an open round, no final thinking block) are checked on what the
    // API sees. Like the user-side merge, it only appends blocks.
    if (last?.role === "assistant") {
      last.content.push(...converted.blocks);
    } else {
      wire.push({ role: "assistant", content: [...converted.blocks] });
      sources.set(wire.length - 1, `messages[${index}]`);
    }
  });
  return { messages: wire, warnings, assistantSources: sources };
}
