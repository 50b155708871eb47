import type { ModelRequest, ProviderAdapter, ProviderEvent, Usage } from "@cursor/run";
import { ProviderServerError, RunCancelledError } from "@cursor/run";

/** One scripted provider answer. */
export interface ScriptedAnswer {
  readonly text?: string;
  readonly reasoning?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string }[];
  readonly usage?: Usage;
  /** Fail the call with a retryable (server) or non-retryable provider error. */
  readonly fail?: { readonly message: string; readonly status?: number };
  /** Wait until this promise settles before finishing (a slow stream to cancel). */
  readonly hold?: Promise<void>;
}

/**
 * A provider answering from a script (then "ok"), recording every request. Usage counts the
 * request's messages, so cached prefixes can be asserted: `cachedInputTokens` is the number of
 * leading messages shared with the previous request.
 */
export class ScriptedProvider implements ProviderAdapter<ModelRequest> {
  readonly id = "scripted";
  readonly requests: ModelRequest[] = [];
  readonly #script: ScriptedAnswer[] = [];
  #nextCall = 0;

  script(...answers: ScriptedAnswer[]): void {
    this.#script.push(...answers);
  }

  serialize(request: ModelRequest) {
    return { body: request, warnings: [] };
  }

  async *stream(
    request: ModelRequest,
    options?: { signal?: AbortSignal },
  ): AsyncIterable<ProviderEvent> {
    this.requests.push(request);
    const answer = this.#script.shift() ?? { text: "ok" };
    if (answer.reasoning !== undefined) yield { type: "reasoning-delta", text: answer.reasoning };
    if (answer.text !== undefined) yield { type: "text-delta", text: answer.text };
    if (answer.hold !== undefined) {
      await new Promise<void>((resolve, reject) => {
        void answer.hold!.then(resolve);
        options?.signal?.addEventListener("abort", () => reject(new RunCancelledError({})), {
          once: true,
        });
      });
    }
    if (answer.fail !== undefined) {
      throw new ProviderServerError({
        message: answer.fail.message,
        providerId: this.id,
        status: answer.fail.status ?? 500,
      });
    }
    for (const [index, call] of (answer.toolCalls ?? []).entries()) {
      this.#nextCall += 1;
      yield {
        type: "tool-call",
        index,
        callId: `call_${this.#nextCall}`,
        name: call.name,
        arguments: call.arguments,
      };
    }
    yield {
      type: "usage",
      usage: answer.usage ?? {
        inputTokens: 100,
        cachedInputTokens: 60,
        cacheWriteTokens: 10,
        outputTokens: 20,
      },
    };
    yield { type: "finish", reason: (answer.toolCalls?.length ?? 0) > 0 ? "tool-calls" : "stop" };
  }
}
