/**
 * Where this process put each conversation's latest UI turn in the `turns` list, so a retry or
 * a continuation of the same run replaces its turn instead of adding a second one. UI turns are
 * display-only (hydration never reads them), so losing this on a restart costs at most a
 * duplicated turn in the IDE's transcript, never history.
 */
export class UiTurnMemory {
  readonly #entries = new Map<string, { runId: string; index: number }>();
  readonly #max: number;

  constructor({ maxConversations = 1_000 }: { maxConversations?: number } = {}) {
    this.#max = maxConversations;
  }

  /** The ids to list: the echoed turns with this run's turn replacing or following them. */
  place({
    conversationId,
    runId,
    echoed,
    turnId,
  }: {
    conversationId: string;
    runId: string;
    echoed: readonly string[];
    turnId: string;
  }): string[] {
    const previous = this.#entries.get(conversationId);
    const index =
      previous !== undefined && previous.runId === runId && previous.index <= echoed.length
        ? previous.index
        : echoed.length;
    this.#entries.delete(conversationId);
    this.#entries.set(conversationId, { runId, index });
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(oldest);
    }
    return [...echoed.slice(0, index), turnId];
  }
}
