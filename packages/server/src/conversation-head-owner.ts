import { createCheckpointEncodeCache } from "@cursor/checkpoint";
import type { CheckpointEncodeCache } from "@cursor/checkpoint";
import { appendTurns } from "@cursor/projection";
import type { ConversationHead, TurnRecord } from "@cursor/projection";
import type { McpServerInput } from "@cursor/request";
import type { CanonicalMessage, TokenAnchor, Usage } from "@cursor/run";
import type { HeadVersion, UsageTotals } from "./store/gateway-store.js";

/**
 * One conversation as this process holds it. Read-only: it changes only through
 * `ConversationHeadOwner.dispatch`, one change at a time, after the store committed it.
 */
export interface HeadState {
  readonly tenant: string;
  readonly conversationId: string;
  /** The projection head; its HistoryLog is the in-memory truth of the current epoch. */
  readonly head: ConversationHead;
  /**
   * The store's head this state matches. `null`: the store does not have the conversation yet;
   * then everything in `head` (a history hydrated from a checkpoint or a front door's state, its
   * turn records) is the seed that goes with the first write, so a resumed conversation is stored
   * whole or not at all.
   */
  readonly version: HeadVersion | null;
  readonly usage: UsageTotals;
  /** The last provider call's input tokens and what they covered (the next token estimate). */
  readonly tokenAnchor: TokenAnchor | undefined;
  /**
   * The MCP servers of the latest accepted request context: every action of the conversation
   * (tool results, injections, ...) rebuilds the same tools from them, so the tool prefix stays
   * byte-identical while the context does not change.
   */
  readonly mcpServers: readonly McpServerInput[] | undefined;
  /**
   * SHA-256 of the JSON checkpoint token this process last handed out for the conversation. A
   * client that sends it back (the usual case) sends bytes the gateway itself wrote: no need to
   * decode them.
   */
  readonly issuedCheckpointDigest: string | undefined;
}

/** What a write that moved the head brings along (the turn, once per request). */
interface HeadWriteChange {
  /** The head the store holds now. */
  readonly next: HeadVersion;
  /** Turn records the write added. */
  readonly turns: readonly TurnRecord[];
  /** The request whose turn the write carried: the conversation's latest accepted run. */
  readonly acceptedRunId?: string;
  /** Present when the write carried a request context: its MCP servers. */
  readonly mcpServers?: { readonly servers: readonly McpServerInput[] | undefined };
}

/** Every way a conversation's head changes. */
export type HeadChange =
  /** The store appended `messages` (validated copies that carry their digests) to the epoch. */
  | ({
      readonly type: "messages-appended";
      readonly messages: readonly CanonicalMessage[];
    } & HeadWriteChange)
  /** The store started epoch `next.epoch` with `messages` as its history (a compaction). */
  | ({
      readonly type: "epoch-started";
      readonly messages: readonly CanonicalMessage[];
    } & HeadWriteChange)
  /** The store recorded how a run ended; with `acceptedRunId` it was the latest accepted run. */
  | { readonly type: "run-recorded"; readonly acceptedRunId?: string }
  /** A provider call reported usage (stored with the run's record). */
  | { readonly type: "usage-added"; readonly usage: Usage }
  /** A successful call's token anchor, for the next estimate. */
  | { readonly type: "token-anchored"; readonly anchor: TokenAnchor }
  /** A JSON checkpoint token for this head was handed out. */
  | { readonly type: "checkpoint-issued"; readonly digest: string };

export const zeroUsage: UsageTotals = {
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

export function initialHeadState(input: {
  tenant: string;
  head: ConversationHead;
  version: HeadVersion | null;
  usage?: UsageTotals;
  tokenAnchor?: TokenAnchor | undefined;
  mcpServers?: readonly McpServerInput[] | undefined;
}): HeadState {
  return Object.freeze({
    tenant: input.tenant,
    conversationId: input.head.conversationId,
    head: input.head,
    version: input.version,
    usage: input.usage ?? zeroUsage,
    tokenAnchor: input.tokenAnchor,
    mcpServers: input.mcpServers,
    issuedCheckpointDigest: undefined,
  });
}

/**
 * The one place a conversation's head changes (a reducer). It also moves the head's HistoryLog,
 * the single mutable part (append-only by construction): the messages a change carries are the
 * validated copies the log handed out, so applying them hashes nothing, and the log must land on
 * the head the store committed.
 */
function reduceHead(state: HeadState, change: HeadChange): HeadState {
  switch (change.type) {
    case "messages-appended": {
      state.head.history.append(change.messages);
      return afterWrite(state, change);
    }
    case "epoch-started": {
      state.head.history.startEpoch(change.messages);
      return { ...afterWrite(state, change), tokenAnchor: undefined };
    }
    case "run-recorded":
      return change.acceptedRunId === undefined
        ? state
        : { ...state, head: withLastRunId(state.head, change.acceptedRunId) };
    case "usage-added":
      return { ...state, usage: addUsage(state.usage, change.usage) };
    case "token-anchored":
      return { ...state, tokenAnchor: change.anchor };
    case "checkpoint-issued":
      return { ...state, issuedCheckpointDigest: change.digest };
    default: {
      const exhaustive: never = change;
      throw new Error(`unknown head change ${JSON.stringify(exhaustive)}`);
    }
  }
}

function afterWrite(state: HeadState, change: HeadWriteChange): HeadState {
  const { history } = state.head;
  if (
    history.epoch !== change.next.epoch ||
    history.headDigest !== change.next.headDigest ||
    history.length !== change.next.messageCount
  ) {
    // The store and this process would disagree from here on: never keep such a head.
    throw new Error(
      `conversation ${state.conversationId}: the history did not land on the committed head`,
    );
  }
  const turns = appendTurns(state.head.turns, change.turns);
  const lastRunId = change.acceptedRunId ?? state.head.lastRunId;
  return {
    ...state,
    head: Object.freeze({
      conversationId: state.head.conversationId,
      history,
      turns,
      ...(lastRunId === undefined ? {} : { lastRunId }),
    }),
    version: change.next,
    mcpServers: change.mcpServers === undefined ? state.mcpServers : change.mcpServers.servers,
  };
}

function withLastRunId(head: ConversationHead, lastRunId: string): ConversationHead {
  return head.lastRunId === lastRunId ? head : Object.freeze({ ...head, lastRunId });
}

function addUsage(total: UsageTotals, usage: Usage): UsageTotals {
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    cachedInputTokens: total.cachedInputTokens + usage.cachedInputTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
  };
}

/**
 * Owns one conversation's head: `state` is read-only, `dispatch` is the only writer (the
 * TanStack Query habit: one reducer, one place). Callers dispatch a change only after the store
 * committed it, so the state never runs ahead of the store.
 */
export class ConversationHeadOwner {
  #state: HeadState;
  /**
   * The full segments of the last encoded JSON checkpoint, so the next one re-encodes only what
   * is new; about the compressed size of the head (the gateway's cache ledger accounts for it).
   */
  readonly encodeCache: CheckpointEncodeCache = createCheckpointEncodeCache({
    scope: "conversation",
  });

  constructor(initial: HeadState) {
    this.#state = initial;
  }

  get state(): HeadState {
    return this.#state;
  }

  dispatch(change: HeadChange): HeadState {
    this.#state = Object.freeze(reduceHead(this.#state, change));
    return this.#state;
  }
}

export function conversationKey(tenant: string, conversationId: string): string {
  return `${tenant}\u0000${conversationId}`;
}
