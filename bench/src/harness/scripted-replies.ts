import { summarizerInstructions } from "@cursor/request";
import type { FakeReply, RecordedRequest } from "@cursor/testkit";

/** The summary the fake model writes when the gateway compacts on its own. */
export const automaticSummaryText =
  "Summary of the conversation so far: the user is refactoring src/ with tests beside the code; " +
  "the request context, the open tool rounds and the latest answers are kept below.";

/**
 * True for the gateway's compaction (summariser) call. The generated session scripts replies
 * only for the calls it knows about; an automatic compaction adds one the script cannot
 * foresee, so it is recognised by its instructions and answered separately.
 */
export function isSummarizerBody(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const record = body as Record<string, unknown>;
  if (record.instructions === summarizerInstructions) return true;
  const system = record.system;
  if (typeof system === "string") return system === summarizerInstructions;
  if (Array.isArray(system)) {
    return system.some(
      (block) =>
        typeof block === "object" &&
        block !== null &&
        (block as { text?: unknown }).text === summarizerInstructions,
    );
  }
  if (Array.isArray(record.messages)) {
    const first = record.messages[0] as { role?: unknown; content?: unknown } | undefined;
    return (
      (first?.role === "system" || first?.role === "developer") &&
      first.content === summarizerInstructions
    );
  }
  return false;
}

/**
 * The fake provider's reply source: the session's scripted replies in order, except that a
 * summariser call gets a summary and does not consume a scripted reply.
 */
export class ScriptedReplies {
  readonly #queue: FakeReply[] = [];

  push(replies: readonly FakeReply[]): void {
    this.#queue.push(...replies);
  }

  get pending(): number {
    return this.#queue.length;
  }

  /** For `startFakeProvider({defaultReply})`. */
  readonly next = (request: RecordedRequest): FakeReply => {
    if (isSummarizerBody(request.body)) return { type: "text", text: automaticSummaryText };
    return this.#queue.shift() ?? { type: "text", text: "OK" };
  };
}
