import { ConnectError } from "../connect/connect-error.js";
import type { TimerHandle, WireTimers } from "./wire-timers.js";

export interface AppendSequencerOptions<T> {
  readonly timers: WireTimers;
  /** Delivers one append, in seqno order. A thrown `ConnectError` fails that append's call. */
  readonly deliver: (message: T, seqno: number) => void;
  /** Called once when a gap did not fill in time; the held appends have been failed. */
  readonly onGapTimeout: (missingSeqno: number) => void;
  /** How far past the next expected seqno an append may arrive and be held. */
  readonly window?: number;
  /** How long a gap may stay open before the held appends fail. */
  readonly gapTimeoutMs?: number;
  /** Total bytes of held appends. */
  readonly maxHeldBytes?: number;
  /**
   * Recognises the message that always comes first (the run request). When it arrives with a
   * seqno above 0 before anything was delivered, the sequence starts there: a client that counts
   * from 1 (facts §1.4, §9) is served as well as one that counts from 0.
   */
  readonly startsSequence?: (message: T) => boolean;
}

interface Held<T> {
  readonly message: T;
  readonly bytes: number;
  readonly waiters: { resolve: () => void; reject: (error: ConnectError) => void }[];
}

const defaultAppendWindow = 256;
const defaultGapTimeoutMs = 30_000;
const defaultMaxHeldBytes = 256 * 1024 * 1024;

/**
 * Orders the appends of one request id by `append_seqno` from 0 (facts §1.4): an append past a
 * gap is held until the gap fills, an append seen before is acknowledged and dropped. Each
 * `submit` settles when its append was delivered (or dropped as a duplicate), so the caller can
 * hold the HTTP call open and report a delivery error on the call that carried the append.
 */
export class AppendSequencer<T> {
  readonly #options: AppendSequencerOptions<T>;
  readonly #window: number;
  readonly #gapTimeoutMs: number;
  readonly #maxHeldBytes: number;
  readonly #held = new Map<number, Held<T>>();
  #heldBytes = 0;
  #next = 0;
  #delivered = 0;
  #gapTimer: TimerHandle | undefined;
  #closed: ConnectError | undefined;

  constructor(options: AppendSequencerOptions<T>) {
    this.#options = options;
    this.#window = options.window ?? defaultAppendWindow;
    this.#gapTimeoutMs = options.gapTimeoutMs ?? defaultGapTimeoutMs;
    this.#maxHeldBytes = options.maxHeldBytes ?? defaultMaxHeldBytes;
  }

  /** The next seqno this sequencer delivers. */
  get nextSeqno(): number {
    return this.#next;
  }

  get heldCount(): number {
    return this.#held.size;
  }

  /** Validates `seqno` without changing anything (for errors found before decoding a body). */
  check(seqno: bigint | number): number {
    const value = typeof seqno === "bigint" ? seqno : BigInt(seqno);
    if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new ConnectError({
        code: "invalid_argument",
        message: `append_seqno ${value} is out of range (0 or more)`,
      });
    }
    const number = Number(value);
    if (number >= this.#next + this.#window) {
      throw new ConnectError({
        code: "invalid_argument",
        message: `append_seqno ${number} is ${number - this.#next} past the next expected append ${this.#next}; at most ${this.#window - 1} may be outstanding`,
      });
    }
    return number;
  }

  submit({
    seqno,
    message,
    bytes = 0,
  }: {
    seqno: bigint | number;
    message: T;
    bytes?: number;
  }): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const number = this.check(seqno);
    if (
      this.#delivered === 0 &&
      number > this.#next &&
      this.#options.startsSequence?.(message) === true
    ) {
      this.#next = number;
    }
    if (number < this.#next) return Promise.resolve();
    const held = this.#held.get(number);
    if (held !== undefined) {
      // A duplicate of a held append: settles together with the first copy.
      return new Promise((resolve, reject) => held.waiters.push({ resolve, reject }));
    }
    if (number > this.#next) {
      if (this.#heldBytes + bytes > this.#maxHeldBytes) {
        return Promise.reject(
          new ConnectError({
            code: "resource_exhausted",
            message: `appends held for a gap exceed ${this.#maxHeldBytes} bytes`,
          }),
        );
      }
      return new Promise((resolve, reject) => {
        this.#held.set(number, { message, bytes, waiters: [{ resolve, reject }] });
        this.#heldBytes += bytes;
        this.#armGapTimer();
      });
    }
    let result: Promise<void>;
    this.#delivered += 1;
    try {
      this.#options.deliver(message, number);
      result = Promise.resolve();
    } catch (error) {
      result = Promise.reject(asConnectError(error));
    }
    this.#next = number + 1;
    this.#drain();
    return result;
  }

  /** Fails every held append with `error` and refuses later ones. */
  close(error: ConnectError): void {
    if (this.#closed !== undefined) return;
    this.#closed = error;
    this.#disarmGapTimer();
    for (const held of this.#held.values()) for (const waiter of held.waiters) waiter.reject(error);
    this.#held.clear();
    this.#heldBytes = 0;
  }

  #drain(): void {
    for (;;) {
      const held = this.#held.get(this.#next);
      if (held === undefined) break;
      this.#held.delete(this.#next);
      this.#heldBytes -= held.bytes;
      let failure: ConnectError | undefined;
      this.#delivered += 1;
      try {
        this.#options.deliver(held.message, this.#next);
      } catch (error) {
        failure = asConnectError(error);
      }
      this.#next += 1;
      for (const waiter of held.waiters) {
        if (failure === undefined) waiter.resolve();
        else waiter.reject(failure);
      }
    }
    if (this.#held.size === 0) this.#disarmGapTimer();
    else {
      // The gap moved: give the new one its own full wait.
      this.#disarmGapTimer();
      this.#armGapTimer();
    }
  }

  #armGapTimer(): void {
    if (this.#gapTimer !== undefined) return;
    this.#gapTimer = this.#options.timers.setTimeout(() => {
      this.#gapTimer = undefined;
      const missing = this.#next;
      this.close(
        new ConnectError({
          code: "failed_precondition",
          message: `append ${missing} did not arrive within ${this.#gapTimeoutMs} ms; the appends after it were dropped`,
        }),
      );
      this.#options.onGapTimeout(missing);
    }, this.#gapTimeoutMs);
  }

  #disarmGapTimer(): void {
    if (this.#gapTimer === undefined) return;
    this.#options.timers.clearTimeout(this.#gapTimer);
    this.#gapTimer = undefined;
  }
}

function asConnectError(error: unknown): ConnectError {
  if (ConnectError.isInstance(error)) return error;
  return new ConnectError({
    code: "internal",
    message: error instanceof Error ? error.message : String(error),
    cause: error,
  });
}
