import type { ConversationHead, TurnRecord } from "@cursor/projection";
import { chainHeadDigest, emptyHeadDigest } from "@cursor/run";
import type { GatewayStore, HeadVersion } from "./store/gateway-store.js";

/**
 * How a verified client checkpoint relates to the stored conversation:
 * - `same`: the same head;
 * - `store-ahead`: the store holds everything the checkpoint does and more (a client that lost
 *   its latest checkpoint): the store is used;
 * - `client-ahead`: the checkpoint holds everything the store does and more (another gateway
 *   process with its own store served a later turn): the store catches up to it, in the same
 *   epoch (`append`) or to its later epoch (`epoch`), before the request runs;
 * - `diverged`: neither holds the other; `reason` says where they part.
 */
export type HeadReconciliation =
  | { readonly kind: "same" }
  | { readonly kind: "store-ahead" }
  | { readonly kind: "client-ahead"; readonly write: "append" | "epoch" }
  | { readonly kind: "diverged"; readonly reason: string };

/**
 * Compares the stored head with a client's verified head. Within one epoch the histories are
 * compared message by message (by content address); across epochs the accepted events decide
 * (turn records outlive compaction, so the later head's records must extend the earlier's).
 */
export function reconcileHeads({
  stored,
  client,
}: {
  stored: ConversationHead;
  client: ConversationHead;
}): HeadReconciliation {
  const storedLog = stored.history;
  const clientLog = client.history;
  if (storedLog.epoch === clientLog.epoch) {
    const shared = Math.min(storedLog.length, clientLog.length);
    for (let index = 0; index < shared; index += 1) {
      if (storedLog.digestAt(index) !== clientLog.digestAt(index)) {
        return {
          kind: "diverged",
          reason: `the checkpoint and the stored conversation differ from message ${index} of epoch ${storedLog.epoch} on (the checkpoint has ${clientLog.messages[index]!.id}, the store ${storedLog.messages[index]!.id})`,
        };
      }
    }
    if (clientLog.length === storedLog.length) return { kind: "same" };
    if (clientLog.length < storedLog.length) return { kind: "store-ahead" };
    const turns = turnsDiverge(stored.turns, client.turns);
    return turns === undefined
      ? { kind: "client-ahead", write: "append" }
      : { kind: "diverged", reason: turns };
  }
  const [earlier, later] = storedLog.epoch < clientLog.epoch ? [stored, client] : [client, stored];
  const turns = turnsDiverge(earlier.turns, later.turns);
  if (turns !== undefined) {
    return {
      kind: "diverged",
      reason: `the checkpoint is of epoch ${clientLog.epoch}, the store of epoch ${storedLog.epoch}, and ${turns}`,
    };
  }
  return later === client ? { kind: "client-ahead", write: "epoch" } : { kind: "store-ahead" };
}

/** Why `later` does not extend `earlier` (event by event), or undefined when it does. */
function turnsDiverge(
  earlier: readonly TurnRecord[],
  later: readonly TurnRecord[],
): string | undefined {
  if (later.length < earlier.length) {
    return `the later head has ${later.length} accepted events, the earlier ${earlier.length}`;
  }
  for (let index = 0; index < earlier.length; index += 1) {
    if (earlier[index]!.eventId !== later[index]!.eventId) {
      return `their accepted events differ from event ${index} on (${earlier[index]!.eventId} and ${later[index]!.eventId})`;
    }
  }
  return undefined;
}

/**
 * Writes what a `client-ahead` checkpoint holds beyond the stored head (one transaction,
 * guarded by `version`): the messages after the stored ones, or the checkpoint's whole later
 * epoch, with the accepted events the store lacks. Returns the store's head afterwards.
 */
export async function catchUpToClient({
  store,
  tenant,
  version,
  stored,
  client,
  write,
}: {
  store: GatewayStore;
  tenant: string;
  version: HeadVersion;
  stored: ConversationHead;
  client: ConversationHead;
  write: "append" | "epoch";
}): Promise<HeadVersion> {
  const log = client.history;
  const next: HeadVersion = {
    epoch: log.epoch,
    headDigest: log.headDigest,
    messageCount: log.length,
  };
  const from = write === "append" ? version.messageCount : 0;
  const input = {
    tenant,
    conversationId: client.conversationId,
    expected: version,
    messages: log.messages.slice(from),
    digests: log.digestRange(from),
    next,
    turns: client.turns
      .slice(stored.turns.length)
      .map((turn) => ({ eventId: turn.eventId, record: turn })),
    ...(client.lastRunId === undefined ? {} : { lastRunId: client.lastRunId }),
  };
  if (write === "append") await store.appendMessages(input);
  else await store.startEpoch(input);
  return next;
}

/**
 * Does `client` hold the stored head `version` (same epoch, its first `messageCount` messages
 * chaining to the stored head digest)? Then its messages are verified copies of the stored ones.
 */
export function coversStoredHead(client: ConversationHead, version: HeadVersion): boolean {
  const log = client.history;
  if (log.epoch !== version.epoch || log.length < version.messageCount) return false;
  let head = emptyHeadDigest(log.epoch);
  for (let index = 0; index < version.messageCount; index += 1) {
    head = chainHeadDigest(head, log.digestAt(index)!);
  }
  return head === version.headDigest;
}
