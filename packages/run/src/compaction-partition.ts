import type {
  CanonicalMessage,
  RequestContextMessage,
  SummaryMessage,
} from "./canonical-message.js";

/** How compaction splits an epoch (plus the current turn's not yet committed messages). */
export interface CompactionPartition {
  /**
   * The latest request-context message, kept verbatim, unless it belongs to the current turn's
   * initial messages (then it stays there, in place).
   */
  readonly requestContext: RequestContextMessage | undefined;
  /** Everything else before the current initial messages: what the summary replaces. */
  readonly compactable: readonly CanonicalMessage[];
  /** The current turn's initial messages, kept verbatim and last. */
  readonly current: readonly CanonicalMessage[];
}

/**
 * Partitions `messages` (the epoch, oldest first) for compaction. `current` are the current
 * turn's initial messages; those already in `messages` (matched by id) are taken out of the
 * compactable part. `keepRequestContext: false` (manual compaction) summarises the context too,
 * so the next user turn re-projects it.
 */
export function partitionHistory({
  messages,
  current,
  keepRequestContext = true,
}: {
  messages: readonly CanonicalMessage[];
  current: readonly CanonicalMessage[];
  keepRequestContext?: boolean;
}): CompactionPartition {
  const currentIds = new Set(current.map((message) => message.id));
  const currentHasContext = current.some((message) => message.kind === "request-context");
  let requestContext: RequestContextMessage | undefined;
  if (keepRequestContext && !currentHasContext) {
    for (let i = messages.length - 1; i >= 0; i -= 1) {
      const message = messages[i]!;
      if (message.kind === "request-context" && !currentIds.has(message.id)) {
        requestContext = message;
        break;
      }
    }
  }
  const compactable = messages.filter(
    (message) => message !== requestContext && !currentIds.has(message.id),
  );
  return { requestContext, compactable, current };
}

/**
 * The history of the new epoch, exactly: [latest request context] + [summary] + [current
 * initial messages].
 */
export function compactionReplacement({
  partition,
  summary,
}: {
  partition: CompactionPartition;
  summary: SummaryMessage;
}): CanonicalMessage[] {
  return [
    ...(partition.requestContext === undefined ? [] : [partition.requestContext]),
    summary,
    ...partition.current,
  ];
}
