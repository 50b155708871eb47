/** An opaque timer handle. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * The clock and timers sessions run on, injectable so tests can advance time (heartbeats,
 * the 30 s no-subscriber cancel, the 10 s KV barrier) without waiting.
 */
export interface WireTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Real timers; they never keep the process alive on their own. */
export const systemTimers: WireTimers = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * Timers that only move when told to: `advance(ms)` runs every timer due by then, in order.
 * For tests of sessions; exported through `@cursor/wire/testing`.
 */
export class ManualTimers implements WireTimers {
  #now: number;
  #next = 1;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();

  constructor({ start = 0 }: { start?: number } = {}) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.#next;
    this.#next += 1;
    this.#pending.set(id, { at: this.#now + Math.max(0, ms), callback });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#pending.delete((handle as { id: number }).id);
  }

  /** Timers not yet run. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Moves the clock forward, running each timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let dueId: number | undefined;
      let dueAt = Infinity;
      for (const [id, timer] of this.#pending) {
        if (timer.at <= target && timer.at < dueAt) {
          dueAt = timer.at;
          dueId = id;
        }
      }
      if (dueId === undefined) break;
      const timer = this.#pending.get(dueId)!;
      this.#pending.delete(dueId);
      this.#now = Math.max(this.#now, timer.at);
      timer.callback();
    }
    this.#now = target;
  }
}
