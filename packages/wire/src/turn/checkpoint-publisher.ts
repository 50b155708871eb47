import { create } from "@bufbuild/protobuf";
import type { Usage } from "@cursor/run";
import type { AgentRunRequest } from "../gen/agent_v1_pb.js";
import { AgentServerMessageSchema } from "../gen/agent_v1_pb.js";
import { toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import { encodeConversationState } from "../state/encode-conversation-state.js";
import type { HeadSnapshot } from "../state/head-snapshot.js";
import { buildUiTurn } from "../state/ui-turn.js";
import type { ClientBlobSource } from "../translate/client-blob-source.js";
import { cursorMode } from "../translate/translate-mode.js";
import type { TranslatedRunRequest } from "../translate/translate-run-request.js";
import type { CursorTurnDeps, CursorTurnStream } from "./turn-context.js";

/** The context window shown in the IDE's gauge when the model does not name one. */
export const defaultContextWindowTokens = 200_000;

/**
 * Publishes one turn's checkpoints: encodes the announced head as Cursor's conversation state,
 * sends the blobs the client lacks (`set_blob_args`), waits for every acknowledgement (the KV
 * barrier), records them in the ledger, and only then sends the checkpoint.
 */
export class CheckpointPublisher {
  readonly #runRequest: AgentRunRequest;
  readonly #stream: CursorTurnStream;
  readonly #deps: CursorTurnDeps;
  readonly #translated: TranslatedRunRequest;
  readonly #blobs: ClientBlobSource;
  /** Blobs known to be on the client for this conversation. */
  readonly #known = new Set<string>();

  constructor({
    runRequest,
    stream,
    deps,
    translated,
    blobs,
  }: {
    runRequest: AgentRunRequest;
    stream: CursorTurnStream;
    deps: CursorTurnDeps;
    translated: TranslatedRunRequest;
    blobs: ClientBlobSource;
  }) {
    this.#runRequest = runRequest;
    this.#stream = stream;
    this.#deps = deps;
    this.#translated = translated;
    this.#blobs = blobs;
    // The echoed state's blobs are on the client (a checkpoint is published only after its
    // blobs were acknowledged), so the ledger is asked only about the rest: O(new) per turn.
    const echoed = runRequest.conversationState;
    for (const id of [...(echoed?.rootPromptMessagesJson ?? []), ...(echoed?.turns ?? [])]) {
      if (id.length === 32) this.#known.add(toHex(id));
    }
  }

  get #conversationId(): string {
    return this.#translated.conversationId;
  }

  /** Records the blobs the client attached or answered: it holds them, they are not sent back. */
  async recordReceived(): Promise<void> {
    const fresh = [...this.#blobs.received].filter((id) => !this.#known.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) this.#known.add(id);
    await this.#deps.ledger.record({ conversationId: this.#conversationId, blobIds: fresh });
  }

  async publish({
    head,
    runId,
    lastUsage,
  }: {
    head: HeadSnapshot;
    /** The run the head belongs to (its UI turn). */
    runId: string | undefined;
    /** The latest provider call's usage, for the context gauge. */
    lastUsage: Usage | undefined;
  }): Promise<void> {
    const deps = this.#deps;
    // Blobs fetched while hydrating are on the client already.
    await this.recordReceived();
    const echoed = this.#runRequest.conversationState;
    const encoded = encodeConversationState({
      head,
      echoed,
      uiTurns: this.#uiTurns(head, runId, (echoed?.turns ?? []).map(toHex)),
      mode: cursorMode(this.#translated.mode),
      tokenDetails: {
        usedTokens:
          lastUsage === undefined
            ? (echoed?.tokenDetails?.usedTokens ?? 0)
            : Math.min(0xffffffff, lastUsage.inputTokens + lastUsage.outputTokens),
        maxTokens: Math.min(
          0xffffffff,
          this.#translated.model.contextWindowTokens ?? defaultContextWindowTokens,
        ),
      },
      secret: deps.ports.checkpointSecret,
      records: deps.records,
    });
    const candidates = new Map(
      encoded.blobs.filter((blob) => !this.#known.has(blob.id)).map((blob) => [blob.id, blob]),
    );
    const acknowledged = await deps.ledger.acknowledged({
      conversationId: this.#conversationId,
      blobIds: [...candidates.keys()],
    });
    for (const id of acknowledged) {
      this.#known.add(id);
      candidates.delete(id);
    }
    const missing = [...candidates.values()].map((blob) => ({ id: blob.id, data: blob.data() }));
    await this.#stream.kv.setBlobs(missing);
    for (const blob of missing) this.#known.add(blob.id);
    await deps.ledger.record({
      conversationId: this.#conversationId,
      blobIds: missing.map((blob) => blob.id),
    });
    this.#stream.send(
      create(AgentServerMessageSchema, {
        message: { case: "conversationCheckpointUpdate", value: encoded.state },
      }),
    );
  }

  /** The `turns` list: the echoed UI turns, with this user-message run's turn placed last. */
  #uiTurns(
    head: HeadSnapshot,
    runId: string | undefined,
    echoed: readonly string[],
  ): { ids: readonly string[]; blobs: readonly ClientBlob[] } {
    const action = this.#translated.action;
    if (action.kind !== "user-message" || runId === undefined) return { ids: echoed, blobs: [] };
    const built = buildUiTurn({
      head,
      runId,
      userMessage: action.userMessage,
      requestId: this.#stream.requestId,
    });
    return {
      ids: this.#deps.uiTurns.place({
        conversationId: this.#conversationId,
        runId,
        echoed,
        turnId: built.turnId,
      }),
      blobs: built.blobs,
    };
  }
}
