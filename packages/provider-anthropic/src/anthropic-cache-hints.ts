import type {
  AnthropicCacheControl,
  AnthropicCacheTtl,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicTool,
} from "./anthropic-api.js";

/** The API answers a request with more than 4 `cache_control` markers with a 400. */
export const maxAnthropicCacheMarkers = 4;

/** Where one marker sits: a tool, a system block, or a content block of a message. */
export type AnthropicCacheMarkerPosition =
  | { readonly kind: "tool"; readonly index: number }
  | { readonly kind: "system"; readonly index: number }
  | { readonly kind: "message"; readonly messageIndex: number; readonly blockIndex: number };

interface CachePrefix {
  readonly tools: readonly AnthropicTool[];
  readonly system: readonly AnthropicTextBlock[];
  readonly messages: readonly AnthropicMessage[];
}

type BlockPosition = Extract<AnthropicCacheMarkerPosition, { kind: "message" }>;

/** Thinking blocks take no `cache_control`; every other block kind this package emits does. */
function isMarkable(block: AnthropicContentBlock): boolean {
  return block.type !== "thinking" && block.type !== "redacted_thinking";
}

/** The newest markable block in `messages[0 .. endMessage)`, searching backwards. */
function newestMarkableBlock(
  messages: readonly AnthropicMessage[],
  endMessage: number,
): BlockPosition | undefined {
  for (let messageIndex = endMessage - 1; messageIndex >= 0; messageIndex -= 1) {
    const content: readonly AnthropicContentBlock[] = messages[messageIndex]!.content;
    for (let blockIndex = content.length - 1; blockIndex >= 0; blockIndex -= 1) {
      if (isMarkable(content[blockIndex]!)) return { kind: "message", messageIndex, blockIndex };
    }
  }
  return undefined;
}

/**
 * Where the markers go, in priority order, never more than four:
 * 1. the last tool — caches the tool list;
 * 2. the last system block — caches tools + instructions;
 * 3. the newest block of the history — this request's whole prefix; the marker moves forward
 *    every turn (markers are not part of the prefix, so moving one changes no cached bytes);
 * 4. the newest block before the newest assistant message — where marker 3 sat on the previous
 *    model call of the loop. The API looks back only 20 block positions from a marker, so a
 *    call that appended more than that (many tool results, long context) would otherwise miss
 *    the entry the previous call wrote; with this marker it reads it exactly.
 */
export function planAnthropicCacheMarkers(prefix: CachePrefix): AnthropicCacheMarkerPosition[] {
  const positions: AnthropicCacheMarkerPosition[] = [];
  if (prefix.tools.length > 0) positions.push({ kind: "tool", index: prefix.tools.length - 1 });
  if (prefix.system.length > 0) {
    positions.push({ kind: "system", index: prefix.system.length - 1 });
  }
  const newest = newestMarkableBlock(prefix.messages, prefix.messages.length);
  if (newest !== undefined) {
    positions.push(newest);
    const lastAssistant = prefix.messages.findLastIndex(
      (message, index) => message.role === "assistant" && index <= newest.messageIndex,
    );
    const previousBoundary =
      lastAssistant > 0 ? newestMarkableBlock(prefix.messages, lastAssistant) : undefined;
    if (previousBoundary !== undefined) positions.push(previousBoundary);
  }
  return positions.slice(0, maxAnthropicCacheMarkers);
}

function withMarker<Block extends object>(block: Block, cacheControl: AnthropicCacheControl) {
  // Spread then append: every existing key keeps its position and bytes; `cache_control` is
  // last, so removing it gives back exactly the unmarked block.
  return { ...block, cache_control: { ...cacheControl } };
}

const cacheControlFor = (ttl: AnthropicCacheTtl | undefined): AnthropicCacheControl =>
  ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };

const ttlMinutes = (ttl: AnthropicCacheTtl | undefined): number => (ttl === "1h" ? 60 : 5);

/**
 * True when a stable-prefix TTL may go with a history TTL: the API wants every marker with a
 * longer TTL before every marker with a shorter one, and the stable prefix comes first.
 */
export function isValidAnthropicTtlOrder({
  stablePrefixTtl,
  historyTtl,
}: {
  stablePrefixTtl: AnthropicCacheTtl | undefined;
  historyTtl: AnthropicCacheTtl | undefined;
}): boolean {
  return ttlMinutes(stablePrefixTtl) >= ttlMinutes(historyTtl);
}

/**
 * Returns copies of tools, system and messages with `cache_control` markers at the planned
 * positions. Only the marked blocks (and the arrays holding them) are copied; the input is not
 * changed, and every other block is shared as is. The markers on the tools and the system block
 * (the stable prefix, written once and read by every turn) take `stablePrefixTtl`, e.g. `1h`;
 * the history markers take `ttl`. Both default to the API's 5 minutes. The stable prefix comes
 * first, so a longer stable TTL keeps the API's rule of longer TTLs before shorter ones.
 */
export function applyAnthropicCacheHints({
  tools,
  system,
  messages,
  ttl,
  stablePrefixTtl = ttl,
}: CachePrefix & { ttl?: AnthropicCacheTtl; stablePrefixTtl?: AnthropicCacheTtl }): {
  tools: AnthropicTool[];
  system: AnthropicTextBlock[];
  messages: AnthropicMessage[];
} {
  const cacheControl = cacheControlFor(ttl);
  const stableCacheControl = cacheControlFor(stablePrefixTtl);
  const markedTools = [...tools];
  const markedSystem = [...system];
  const markedMessages = [...messages];
  for (const position of planAnthropicCacheMarkers({ tools, system, messages })) {
    switch (position.kind) {
      case "tool":
        markedTools[position.index] = withMarker(markedTools[position.index]!, stableCacheControl);
        break;
      case "system":
        markedSystem[position.index] = withMarker(
          markedSystem[position.index]!,
          stableCacheControl,
        );
        break;
      case "message": {
        const message = markedMessages[position.messageIndex]!;
        markedMessages[position.messageIndex] = markMessageBlock({
          message,
          blockIndex: position.blockIndex,
          cacheControl,
        });
        break;
      }
      default: {
        const exhaustive: never = position;
        throw new TypeError(`unknown marker position ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return { tools: markedTools, system: markedSystem, messages: markedMessages };
}

function markMessageBlock({
  message,
  blockIndex,
  cacheControl,
}: {
  message: AnthropicMessage;
  blockIndex: number;
  cacheControl: AnthropicCacheControl;
}): AnthropicMessage {
  if (message.role === "user") {
    const content = [...message.content];
    content[blockIndex] = withMarker(content[blockIndex]!, cacheControl);
    return { role: "user", content };
  }
  const content = [...message.content];
  const block = content[blockIndex]!;
  // Planning never picks a thinking block; the check keeps the types honest.
  if (block.type === "thinking" || block.type === "redacted_thinking") return message;
  content[blockIndex] = withMarker(block, cacheControl);
  return { role: "assistant", content };
}
