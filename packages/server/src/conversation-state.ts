import type { CheckpointEncodeCache } from "@cursor/checkpoint";
import { createCheckpointEncodeCache } from "@cursor/checkpoint";
import type { ConversationHead } from "@cursor/projection";
import type { McpServerInput } from "@cursor/request";
import type { CanonicalMessage, TokenAnchor } from "@cursor/run";
import type { HeadVersion, UsageTotals } from "./store/gateway-store.js";

/**
 * One conversation as this process holds it: the projection head (its HistoryLog is the
 * in-memory truth, appended to only after the store committed) plus what the store needs.
 */
export interface ConversationState {
  readonly tenant: string;
  readonly conversationId: string;
  head: ConversationHead;
  /** The store's head this state matches; null until the conversation is first stored. */
  version: HeadVersion | null;
  /**
   * Messages hydrated from a client checkpoint that the store does not have yet: written with
   * the first commit, so a resumed conversation is stored whole or not at all.
   */
  seed: readonly CanonicalMessage[];
  usage: UsageTotals;
  tokenAnchor: TokenAnchor | undefined;
  /**
   * The MCP servers of the latest accepted request context: every action of the conversation
   * (tool results, injections, ...) rebuilds the same tools from them, so the tool prefix stays
   * byte-identical while the context does not change.
   */
  mcpServers: readonly McpServerInput[] | undefined;
  readonly encodeCache: CheckpointEncodeCache;
  /**
   * SHA-256 of the checkpoint token this process last handed out for this head. A client that
   * sends it back (the usual case) sends bytes the gateway itself wrote: no need to decode them.
   */
  issuedCheckpointDigest: string | undefined;
}

export const zeroUsage: UsageTotals = {
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

export function newConversationState(input: {
  tenant: string;
  conversationId: string;
  head: ConversationHead;
  version: HeadVersion | null;
  seed?: readonly CanonicalMessage[];
  usage?: UsageTotals;
  tokenAnchor?: TokenAnchor | undefined;
  mcpServers?: readonly McpServerInput[] | undefined;
}): ConversationState {
  return {
    tenant: input.tenant,
    conversationId: input.conversationId,
    head: input.head,
    version: input.version,
    seed: input.seed ?? [],
    usage: input.usage ?? zeroUsage,
    tokenAnchor: input.tokenAnchor,
    mcpServers: input.mcpServers,
    encodeCache: createCheckpointEncodeCache({ maxBytes: 16 * 1024 * 1024 }),
    issuedCheckpointDigest: undefined,
  };
}

export function conversationKey(tenant: string, conversationId: string): string {
  return `${tenant}\u0000${conversationId}`;
}
