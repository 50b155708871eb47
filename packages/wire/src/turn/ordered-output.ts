import type { AgentServerMessage } from "../gen/agent_v1_pb.js";

/**
 * The downlink of one turn in order: plain messages and asynchronous steps (a checkpoint that
 * waits for its KV barrier) leave exactly in the order they were queued, so nothing overtakes a
 * checkpoint. The first failing step is kept; later steps are skipped and `flush` rethrows it.
 */
export class OrderedOutput {
  readonly #send: (message: AgentServerMessage) => void;
  #tail: Promise<void> = Promise.resolve();
  #busy = 0;
  #failure: unknown;
  #failed = false;

  constructor(send: (message: AgentServerMessage) => void) {
    this.#send = send;
  }

  send(message: AgentServerMessage): void {
    if (this.#failed) return;
    // Nothing queued ahead: send now, so text streams without a microtask per delta.
    if (this.#busy === 0) {
      this.#send(message);
      return;
    }
    this.step(() => {
      this.#send(message);
      return Promise.resolve();
    });
  }

  step(run: () => Promise<void>, onFailure?: (error: unknown) => void): void {
    if (this.#failed) return;
    this.#busy += 1;
    this.#tail = this.#tail.then(async () => {
      try {
        if (!this.#failed) await run();
      } catch (error) {
        if (!this.#failed) {
          this.#failed = true;
          this.#failure = error;
          onFailure?.(error);
        }
      } finally {
        this.#busy -= 1;
      }
    });
  }

  /** Waits for everything queued; throws the first step failure. */
  async flush(): Promise<void> {
    await this.#tail;
    if (this.#failed) throw this.#failure;
  }
}
