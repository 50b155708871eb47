import { HistoryConflictError, HistoryLog, InvalidHistoryError } from "@cursor/run";
import type { ConversationStateStructure } from "../gen/agent_v1_pb.js";
import { toHex } from "../hex.js";
import type { HydratedHeadLike } from "../ports.js";
import type { ClientBlobSource } from "../translate/client-blob-source.js";
import { refusedStateError, verifyStateSeal } from "./state-seal.js";
import { readTurnRecords, turnRecordsDigest } from "./turn-record-packs.js";

/**
 * Rebuilds a conversation head from the Cursor conversation state the IDE echoed, for a
 * conversation the store does not know (another machine, a fresh data folder). Verifies the
 * seal's MAC, fetches the epoch's message blobs (attached or over KV, each SHA-256 checked),
 * re-validates every message through `HistoryLog` and requires the digest chain the seal signed,
 * so the same message ids and content come back and dedup and the provider prefix continue
 * exactly. A state that was altered or forged, even with consistent blob hashes, is refused with
 * `invalid_argument`. Returns `undefined` for an empty state (a new conversation).
 */
export async function hydrateConversationState({
  state,
  conversationId,
  secret,
  blobs,
}: {
  state: ConversationStateStructure | undefined;
  conversationId: string;
  secret: string;
  blobs: ClientBlobSource;
}): Promise<HydratedHeadLike | undefined> {
  const roots = state?.rootPromptMessagesJson ?? [];
  if (roots.length === 0) return undefined;
  roots.forEach((entry, index) => {
    if (entry.length !== 32) {
      throw refusedStateError(
        `root_prompt_messages_json[${index}] is not a 32-byte blob id (the state was not written by this gateway)`,
      );
    }
  });
  const seal = verifyStateSeal({
    data: await blobs.get(roots[0]!, "conversation-state seal"),
    secret,
    conversationId,
  });
  const entries = roots.slice(1).map((entry) => toHex(entry));
  if (entries.length !== seal.turnRecords.blobs + seal.messages) {
    throw refusedStateError(
      `it lists ${entries.length} entries after its seal, the seal signed ${seal.turnRecords.blobs} turn-record blobs and ${seal.messages} messages`,
    );
  }
  const recordIds = entries.slice(0, seal.turnRecords.blobs);
  const messageIds = entries.slice(seal.turnRecords.blobs);
  if (turnRecordsDigest(recordIds) !== seal.turnRecords.digest) {
    throw refusedStateError("its turn-record blobs are not the ones its seal signed");
  }
  // Every blob is asked for at once (attached ones cost nothing; the rest share one round trip).
  const [messages, turns] = await Promise.all([
    Promise.all(
      messageIds.map(async (id, index) =>
        parseMessage(await blobs.get(id, `root message ${index + 1}`), id),
      ),
    ),
    readTurnRecords({
      ids: recordIds,
      count: seal.turnRecords.count,
      fetch: (id) => blobs.get(id, "turn-record blob"),
    }),
  ]);
  let history: HistoryLog;
  try {
    history = new HistoryLog({ epoch: seal.epoch, messages });
  } catch (error) {
    if (InvalidHistoryError.isInstance(error) || HistoryConflictError.isInstance(error)) {
      throw refusedStateError(`its history is not valid: ${error.message}`, error);
    }
    throw error;
  }
  if (history.headDigest !== seal.headDigest) {
    // Blob ids are SHA-256 of the bytes, digests of the canonical JSON: a blob that is not the
    // message's canonical JSON, or messages in another order, give another chain.
    throw refusedStateError("its messages do not match the history its seal signed");
  }
  return {
    history,
    turns,
    ...(seal.lastRunId === null ? {} : { lastRunId: seal.lastRunId }),
  };
}

/** The blob's JSON; `HistoryLog` validates it as a canonical message. */
function parseMessage(data: Uint8Array, id: string): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data)) as unknown;
  } catch (error) {
    throw refusedStateError(`root message blob ${id} is not JSON`, error);
  }
}
