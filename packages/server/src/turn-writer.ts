import type { TurnRecord } from "@cursor/projection";
import type { McpServerInput } from "@cursor/request";
import type { CanonicalMessage, JsonValue } from "@cursor/run";
import type { ConversationHeadOwner, HeadState } from "./conversation-head-owner.js";
import type { GatewayStore, HeadVersion, StoredRun, StoredTurn } from "./store/gateway-store.js";

/** Messages as a HistoryLog validated them: what a write stores, under these digests. */
export interface CheckedMessages {
  readonly messages: readonly CanonicalMessage[];
  readonly digests: readonly string[];
  /** The epoch's head digest with the messages. */
  readonly headDigest: string;
  /** Messages in the epoch with them. */
  readonly length: number;
}

/** What one request adds to the conversation besides messages. */
export interface TurnRecords {
  /** The request's new event records. */
  readonly newTurns: readonly TurnRecord[];
  /** The request's run id: the latest accepted run once the turn is written. */
  readonly acceptedRunId: string;
  /** Present when the request carried a request context: its MCP servers, stored with the turn. */
  readonly mcpServers?: { readonly servers: readonly McpServerInput[] | undefined };
}

/**
 * The store writes of one request, each followed by the head owner's change: nothing else writes
 * a conversation. The request's turn (its records, the accepted run, the request context's MCP
 * servers) goes with the first write that moves the head, in the same transaction; a request that
 * moves nothing records its accepted run with the run's end (`recordRun({ acceptRun: true })`).
 * While the store does not have the conversation, the first write carries the seed (the whole
 * hydrated head) as well.
 */
export class TurnWriter {
  readonly #store: GatewayStore;
  readonly #owner: ConversationHeadOwner;
  readonly #turn: TurnRecords;
  #turnWritten = false;

  constructor({
    store,
    owner,
    turn,
  }: {
    store: GatewayStore;
    owner: ConversationHeadOwner;
    turn: TurnRecords;
  }) {
    this.#store = store;
    this.#owner = owner;
    this.#turn = turn;
  }

  /** True once the request's turn is in the store. */
  get turnWritten(): boolean {
    return this.#turnWritten;
  }

  /** Appends messages to the current epoch (one transaction), then moves the head. */
  async appendMessages(checked: CheckedMessages): Promise<HeadState> {
    const state = this.#owner.state;
    const { history } = state.head;
    // Unstored conversation: its whole epoch so far is the seed, digests as the log has them.
    const seed = state.version === null ? history.messages : [];
    const seedDigests = state.version === null ? history.digests : [];
    const next: HeadVersion = {
      epoch: history.epoch,
      headDigest: checked.headDigest,
      messageCount: checked.length,
    };
    const turn = this.#turnOfWrite(state);
    await this.#store.appendMessages({
      tenant: state.tenant,
      conversationId: state.conversationId,
      expected: state.version,
      messages: [...seed, ...checked.messages],
      digests: [...seedDigests, ...checked.digests],
      next,
      ...turn.write,
    });
    this.#turnWritten = true;
    return this.#owner.dispatch({
      type: "messages-appended",
      messages: checked.messages,
      next,
      ...turn.change,
    });
  }

  /** Starts a new epoch with `checked.messages` as its history (one transaction). */
  async startEpoch(checked: CheckedMessages & { readonly epoch: number }): Promise<HeadState> {
    const state = this.#owner.state;
    const next: HeadVersion = {
      epoch: checked.epoch,
      headDigest: checked.headDigest,
      messageCount: checked.length,
    };
    const turn = this.#turnOfWrite(state);
    await this.#store.startEpoch({
      tenant: state.tenant,
      conversationId: state.conversationId,
      expected: state.version,
      messages: checked.messages,
      digests: checked.digests,
      next,
      ...turn.write,
    });
    this.#turnWritten = true;
    return this.#owner.dispatch({
      type: "epoch-started",
      messages: checked.messages,
      next,
      ...turn.change,
    });
  }

  /**
   * Records how the run ended; for a stored conversation with its usage totals and token anchor,
   * and, with `acceptRun`, the request as the latest accepted run (a request that wrote nothing).
   */
  async recordRun({ run, acceptRun }: { run: StoredRun; acceptRun: boolean }): Promise<HeadState> {
    const state = this.#owner.state;
    const base = { tenant: state.tenant, conversationId: state.conversationId, run };
    if (state.version === null) {
      await this.#store.recordRun({ ...base, expected: null });
      return state;
    }
    const anchor = state.tokenAnchor;
    const lastRunId = acceptRun && !this.#turnWritten ? this.#turn.acceptedRunId : undefined;
    await this.#store.recordRun({
      ...base,
      expected: state.version,
      usage: state.usage,
      ...(anchor === undefined || anchor.epoch !== state.version.epoch
        ? {}
        : { lastInput: { inputTokens: anchor.inputTokens, messageCount: anchor.messageCount } }),
      ...(lastRunId === undefined ? {} : { lastRunId }),
    });
    return this.#owner.dispatch({
      type: "run-recorded",
      ...(lastRunId === undefined ? {} : { acceptedRunId: lastRunId }),
    });
  }

  /** The turn's part of a head write: all of it with the first write, nothing after. */
  #turnOfWrite(state: HeadState): {
    write: { turns: StoredTurn[]; lastRunId?: string; promptSpecInput?: JsonValue };
    change: {
      turns: readonly TurnRecord[];
      acceptedRunId?: string;
      mcpServers?: TurnRecords["mcpServers"];
    };
  } {
    // A conversation's first write stores every record of its (hydrated) head too.
    const seedTurns = state.version === null ? state.head.turns : [];
    if (this.#turnWritten) {
      return { write: { turns: seedTurns.map(storedTurn) }, change: { turns: [] } };
    }
    const { newTurns, acceptedRunId, mcpServers } = this.#turn;
    return {
      write: {
        turns: [...seedTurns, ...newTurns].map(storedTurn),
        lastRunId: acceptedRunId,
        ...(mcpServers === undefined
          ? {}
          : {
              promptSpecInput: {
                mcpServers: (mcpServers.servers ?? []) as unknown as JsonValue,
              },
            }),
      },
      change: {
        turns: newTurns,
        acceptedRunId,
        ...(mcpServers === undefined ? {} : { mcpServers }),
      },
    };
  }
}

function storedTurn(turn: TurnRecord): StoredTurn {
  return { eventId: turn.eventId, record: turn };
}
