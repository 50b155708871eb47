import type { ModelAssistantMessage, Warning } from "@cursor/run";
import type { AnthropicAssistantBlock } from "./anthropic-api.js";
import { readAnthropicReplayBlocks } from "./anthropic-replay-state.js";
import { isSendableText } from "./anthropic-sendable-text.js";
import { toAnthropicToolCallId } from "./anthropic-tool-call-id.js";
import { parseAnthropicToolInput } from "./parse-anthropic-tool-input.js";

/** Why a thinking-only message is left out (its own warning, so the cause is clear). */
const thinkingOnlyMessage =
  "assistant message holds only thinking (its output ran out while thinking); left out, since the API refuses an assistant message that ends with a thinking block";

/**
 * The content blocks of one assistant message: replayed thinking / redacted thinking blocks
 * verbatim (only from `replay["anthropic"]`), then the text (left out when blank — models often
 * emit only a newline before a tool call, and the API refuses whitespace-only text blocks), then
 * one `tool_use` per call in index order. The canonical `reasoning` text is never sent: without
 * its signature the API would refuse it, and the signed blocks already carry it.
 *
 * A message with nothing after its thinking (a reply whose output budget ran out while it was
 * thinking, `stop_reason: max_tokens`) renders as no blocks at all, with a warning: the API
 * refuses an assistant message whose final block is thinking, and signed thinking cannot be
 * moved or followed by invented text. The decision reads this message only, so it renders the
 * same way on every later turn, after a restart and from a checkpoint. An empty result means
 * "leave the message out".
 */
export function convertAnthropicAssistantContent({
  message,
  path,
}: {
  message: ModelAssistantMessage;
  path: string;
}): { blocks: AnthropicAssistantBlock[]; warnings: Warning[] } {
  const replayed = readAnthropicReplayBlocks({ replay: message.replay, path });
  const blocks: AnthropicAssistantBlock[] = [...replayed.blocks];
  const warnings: Warning[] = [...replayed.warnings];
  if (isSendableText(message.text)) blocks.push({ type: "text", text: message.text });
  message.toolCalls.forEach((call, index) => {
    const { input, warning } = parseAnthropicToolInput({
      argumentsText: call.arguments,
      path: `${path}.toolCalls[${index}].arguments`,
    });
    if (warning !== undefined) warnings.push(warning);
    blocks.push({
      type: "tool_use",
      id: toAnthropicToolCallId(call.callId),
      name: call.name,
      input,
    });
  });
  if (blocks.length === replayed.blocks.length) {
    warnings.push({
      type: "dropped",
      message: replayed.blocks.length > 0 ? thinkingOnlyMessage : "empty assistant message dropped",
      path,
    });
    return { blocks: [], warnings };
  }
  return { blocks, warnings };
}
