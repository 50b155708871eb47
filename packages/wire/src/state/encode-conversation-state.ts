import { create, toBinary } from "@bufbuild/protobuf";
import { recentCanonicalJson } from "@cursor/run";
import type { AgentMode, ConversationStateStructure } from "../gen/agent_v1_pb.js";
import {
  ConversationStateStructureSchema,
  ConversationSummarySchema,
  ConversationTokenDetailsSchema,
} from "../gen/agent_v1_pb.js";
import { fromHex, sha256, toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import type { HeadSnapshot } from "./head-snapshot.js";
import { pendingToolCallsJson } from "./pending-tool-calls-json.js";
import type { SettledToolResult } from "./pending-tool-calls-json.js";
import { createStateSeal, encodeStateSeal } from "./state-seal.js";
import type { TurnRecordPacks } from "./turn-record-packs.js";
import { turnRecordsDigest } from "./turn-record-packs.js";

/** A blob the state references, with its bytes computed only if the client lacks it. */
interface ReferencedBlob {
  readonly id: string;
  data(): Uint8Array;
}

export interface EncodedConversationState {
  readonly state: ConversationStateStructure;
  /** Every blob the state references (directly or through the seal and UI turns). */
  readonly blobs: readonly ReferencedBlob[];
}

function eager(blob: ClientBlob): ReferencedBlob {
  return { id: blob.id, data: () => blob.data };
}

/**
 * The Cursor conversation state of a head (facts §3.1):
 * - `root_prompt_messages_json`: the seal (see `StateSeal`), the turn-record blobs (see
 *   `turnRecordLayout`), then one 32-byte blob id per canonical message of the current epoch:
 *   the SHA-256 of its canonical JSON, which is its `HistoryLog` digest, so ids cost nothing to
 *   compute and the blobs are built only for the messages the client does not hold yet;
 * - `turns`: the UI turns (the echoed ones, then this run's);
 * - `pending_tool_calls`, `token_details`, `summary`, `mode`, `self_summary_count`: current;
 * - `todos`: the gateway's list (`todo_write`), or the echoed entries when it was not given;
 * - `pending_tool_calls` also records the results of the open round's calls that settled;
 * - every field the gateway does not own: the echoed state's bytes, unchanged.
 */
export function encodeConversationState({
  head,
  echoed,
  uiTurns,
  mode,
  tokenDetails,
  secret,
  records,
  settled,
  todos,
}: {
  head: HeadSnapshot;
  /** The state the client sent with the run request (foreign fields and todos come from it). */
  echoed: ConversationStateStructure | undefined;
  /** The UI turn ids to list, and the blobs of the ones this run built. */
  uiTurns: { readonly ids: readonly string[]; readonly blobs: readonly ClientBlob[] };
  mode: AgentMode;
  tokenDetails: { readonly usedTokens: number; readonly maxTokens: number };
  secret: string;
  records: TurnRecordPacks;
  /** Results of the open round's calls so far. */
  settled?: ReadonlyMap<string, SettledToolResult>;
  /** The todo list's entries (each an encoded TodoItem); absent: the echoed ones. */
  todos?: readonly Uint8Array[];
}): EncodedConversationState {
  const messageIds = head.digests;
  const blobs: ReferencedBlob[] = [];
  for (let index = 0; index < head.messages.length; index += 1) {
    const id = head.digests[index]!;
    const message = head.messages[index]!;
    blobs.push({
      id,
      // The message's canonical JSON: its digest is exactly this blob's SHA-256 (a turn's new
      // message was just validated: its text is at hand).
      data: () => Buffer.from(recentCanonicalJson(message), "utf8"),
    });
  }
  const recordBlobs = records.blobs({ conversationId: head.conversationId, records: head.turns });
  blobs.push(...recordBlobs);
  const recordIds = recordBlobs.map((blob) => blob.id);
  const seal = createStateSeal({
    secret,
    conversationId: head.conversationId,
    epoch: head.epoch,
    messages: head.messages.length,
    headDigest: head.headDigest,
    turnRecords: {
      count: head.turns.length,
      blobs: recordIds.length,
      digest: turnRecordsDigest(recordIds),
    },
    lastRunId: head.lastRunId ?? null,
  });
  const sealData = encodeStateSeal(seal);
  const sealId = toHex(sha256(sealData));
  blobs.push({ id: sealId, data: () => sealData });
  blobs.push(...uiTurns.blobs.map(eager));

  const summary = head.messages.find((message) => message.kind === "summary");
  const state = create(ConversationStateStructureSchema, {
    rootPromptMessagesJson: [
      fromHex(sealId),
      ...recordIds.map(fromHex),
      ...messageIds.map(fromHex),
    ],
    todos: [...(todos ?? echoed?.todos ?? [])],
    pendingToolCalls: pendingToolCallsJson(head, settled),
    tokenDetails: create(ConversationTokenDetailsSchema, tokenDetails),
    ...(summary?.kind === "summary"
      ? {
          summary: toBinary(
            ConversationSummarySchema,
            create(ConversationSummarySchema, { summary: summary.text }),
          ),
        }
      : {}),
    turns: uiTurns.ids.map(fromHex),
    mode,
    selfSummaryCount: head.epoch,
  });
  // Fields this gateway does not own stay exactly as the client sent them.
  if (echoed?.$unknown !== undefined)
    state.$unknown = echoed.$unknown.map((field) => ({ ...field }));
  return { state, blobs };
}
