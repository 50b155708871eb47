import { z } from "zod";
import type { JsonValue, Warning } from "@cursor/run";
import type { AnthropicRedactedThinkingBlock, AnthropicThinkingBlock } from "./anthropic-api.js";

/** The replay bag key this package reads and writes; equal to the adapter id. */
export const anthropicProviderId = "anthropic";

const replayBlockSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);

/**
 * What an assistant message carries in `replay["anthropic"]`: its thinking and redacted
 * thinking blocks, in the order the API sent them, signatures included. Strict, because it is
 * state this package wrote itself and replays verbatim.
 */
export const anthropicReplayStateSchema = z.strictObject({
  blocks: z.array(replayBlockSchema),
});

export type AnthropicReplayBlock = AnthropicThinkingBlock | AnthropicRedactedThinkingBlock;
export interface AnthropicReplayState {
  readonly blocks: readonly AnthropicReplayBlock[];
}

/** Builds the replay state from blocks in stream order; key order matches the wire blocks. */
export function toAnthropicReplayState(blocks: readonly AnthropicReplayBlock[]): JsonValue {
  return {
    blocks: blocks.map((block): JsonValue =>
      block.type === "thinking"
        ? { type: "thinking", thinking: block.thinking, signature: block.signature }
        : { type: "redacted_thinking", data: block.data },
    ),
  };
}

/**
 * The thinking blocks to replay before an assistant message's text and tool calls. Only this
 * provider's own entry is read: reasoning from another provider (or the canonical `reasoning`
 * text) has no Anthropic signature and would be refused. A malformed entry is dropped with a
 * warning rather than sent, since the API would reject it anyway.
 */
export function readAnthropicReplayBlocks({
  replay,
  path,
}: {
  replay: Readonly<Record<string, JsonValue>>;
  path: string;
}): { blocks: AnthropicReplayBlock[]; warnings: Warning[] } {
  const state = replay[anthropicProviderId];
  if (state === undefined) return { blocks: [], warnings: [] };
  const parsed = anthropicReplayStateSchema.safeParse(state);
  if (!parsed.success) {
    return {
      blocks: [],
      warnings: [
        {
          type: "dropped",
          message: "malformed anthropic replay state; thinking blocks not replayed",
          path: `${path}.replay.${anthropicProviderId}`,
        },
      ],
    };
  }
  // Rebuild each block in wire key order rather than trusting the stored object's order.
  const blocks = parsed.data.blocks.map((block): AnthropicReplayBlock =>
    block.type === "thinking"
      ? { type: "thinking", thinking: block.thinking, signature: block.signature }
      : { type: "redacted_thinking", data: block.data },
  );
  return { blocks, warnings: [] };
}
