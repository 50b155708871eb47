import type { AssistantMessage, CanonicalMessage } from "./canonical-message.js";
import type { HistoryLog } from "./history-log.js";
import { assistantMessageId, messageIdPrefixes } from "./message-ids.js";

/**
 * The step number of the run's next assistant message: one past the highest step of the run's
 * assistant messages at the end of the history (those survive a compaction in the kept tool
 * round), and never an id already in the epoch. O(messages of the run), not O(history).
 */
export function nextAssistantStep(history: HistoryLog, runId: string): number {
  const prefix = `${messageIdPrefixes.assistant}${runId}:`;
  const { messages } = history;
  let step = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.kind === "tool-result") continue;
    if (message.kind !== "assistant" || !message.id.startsWith(prefix)) break;
    const number = Number(message.id.slice(prefix.length));
    if (Number.isSafeInteger(number) && number >= step) step = number + 1;
  }
  while (history.has(assistantMessageId({ runId, step }))) step += 1;
  return step;
}

/**
 * The current turn's initial messages as compaction must keep them, in history order: the
 * caller's `initial` (e.g. the turn's request context and runtime message, committed before the
 * loop ran), the uncommitted `pending` messages, and, when the turn continues a tool round, that
 * open round (its assistant message and the results so far): results alone would answer calls
 * the new epoch no longer has. Messages that are neither in the history nor pending are ignored.
 * The round's assistant message is kept without its replay state: that provider state (an
 * Anthropic thinking signature, an OpenAI encrypted reasoning item) was produced against the
 * prompt being replaced, and a provider may refuse it before any other context (the signature
 * binds what preceded it). Its text, reasoning and calls stay.
 */
export function currentTurnMessages({
  history,
  pending,
  initial = [],
}: {
  history: HistoryLog;
  pending: readonly CanonicalMessage[];
  initial?: readonly CanonicalMessage[];
}): CanonicalMessage[] {
  const { messages } = history;
  const wanted = new Set([...initial, ...pending].map((message) => message.id));
  let keepFrom = messages.length;
  if ((pending[0] ?? messages.at(-1))?.kind === "tool-result") {
    let start = messages.length - 1;
    while (start >= 0 && messages[start]!.kind === "tool-result") start -= 1;
    if (messages[start]?.kind === "assistant") keepFrom = start;
  }
  const committed: CanonicalMessage[] = [];
  if (wanted.size > 0 || keepFrom < messages.length) {
    // Compaction is rare and O(history) anyway (it rewrites the epoch), so a scan is fine here.
    messages.forEach((message, index) => {
      if (index === keepFrom && message.kind === "assistant")
        committed.push(withoutReplay(message));
      else if (index >= keepFrom || wanted.has(message.id)) committed.push(message);
    });
  }
  const committedIds = new Set(committed.map((message) => message.id));
  return [...committed, ...pending.filter((message) => !committedIds.has(message.id))];
}

function withoutReplay(message: AssistantMessage): AssistantMessage {
  return Object.keys(message.replay).length === 0 ? message : { ...message, replay: {} };
}

/** Tool calls that stay unanswered once `pending` is appended. */
export function openCallsAfter(
  history: HistoryLog,
  pending: readonly CanonicalMessage[],
): string[] {
  const answered = new Set(
    pending.flatMap((message) => (message.kind === "tool-result" ? [message.callId] : [])),
  );
  return history
    .pendingToolCalls()
    .map((call) => call.callId)
    .filter((callId) => !answered.has(callId));
}
