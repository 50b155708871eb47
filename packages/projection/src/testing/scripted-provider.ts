import type { ModelRequest, ProviderAdapter, ProviderEvent } from "@cursor/run";

/** What the scripted model answers to one call. */
export type ScriptedStep =
  | { readonly text: string }
  | { readonly toolCalls: readonly { readonly name: string; readonly arguments: string }[] };

export interface RecordedCall {
  readonly request: ModelRequest;
  /** The history epoch the call was made in (read from the caller when it was made). */
  readonly epoch: number;
}

/**
 * A provider that answers from a script (then with "ok") and records every request it gets.
 * Tool call ids are numbered per provider, so they never repeat within a conversation.
 */
export class ScriptedProvider implements ProviderAdapter<ModelRequest> {
  readonly id = "scripted";
  readonly calls: RecordedCall[] = [];
  #script: ScriptedStep[] = [];
  #nextCall = 0;
  readonly #epoch: () => number;

  constructor({ epoch = () => 0 }: { epoch?: () => number } = {}) {
    this.#epoch = epoch;
  }

  /** Queues answers for the next calls, in order. */
  script(...steps: ScriptedStep[]): void {
    this.#script.push(...steps);
  }

  serialize(request: ModelRequest) {
    return { body: request, warnings: [] };
  }

  async *stream(request: ModelRequest): AsyncIterable<ProviderEvent> {
    this.calls.push({ request, epoch: this.#epoch() });
    const step = this.#script.shift() ?? { text: "ok" };
    if ("text" in step) {
      yield { type: "text-delta", text: step.text };
      yield { type: "finish", reason: "stop" };
      return;
    }
    for (const [index, call] of step.toolCalls.entries()) {
      this.#nextCall += 1;
      yield {
        type: "tool-call",
        index,
        callId: `call_${this.#nextCall}`,
        name: call.name,
        arguments: call.arguments,
      };
    }
    yield { type: "finish", reason: "tool-calls" };
  }
}
