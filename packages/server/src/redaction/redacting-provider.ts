import type { ModelRequest, ProviderAdapter, ProviderEvent, StreamOptions } from "@cursor/run";
import type { SecretRedactor } from "./secret-redactor.js";

/**
 * Wraps an adapter so nothing secret it receives from the provider gets any further: text and
 * reasoning deltas (a secret split across deltas included), tool calls, replay state and
 * warnings are redacted before the model loop sees them, so no secret reaches the history, the
 * store, a checkpoint or a client; a thrown error (a provider's error text may echo the key) is
 * redacted before it travels on (retry events, run errors, logs).
 */
export function redactingProvider({
  adapter,
  redactor,
}: {
  adapter: ProviderAdapter;
  redactor: SecretRedactor;
}): ProviderAdapter {
  if (redactor.size === 0) return adapter;
  return {
    id: adapter.id,
    serialize: (request) => adapter.serialize(request),
    stream: (request: ModelRequest, options?: StreamOptions) =>
      redactEvents(adapter.stream(request, options), redactor),
  };
}

async function* redactEvents(
  events: AsyncIterable<ProviderEvent>,
  redactor: SecretRedactor,
): AsyncIterable<ProviderEvent> {
  const text = redactor.stream();
  const reasoning = redactor.stream();
  // What a delta stream still holds back, emitted before anything that is not a delta.
  function* flushed(): Generator<ProviderEvent> {
    const heldText = text.flush();
    if (heldText !== "") yield { type: "text-delta", text: heldText };
    const heldReasoning = reasoning.flush();
    if (heldReasoning !== "") yield { type: "reasoning-delta", text: heldReasoning };
  }
  try {
    for await (const event of events) {
      switch (event.type) {
        case "text-delta": {
          const safe = text.push(event.text);
          if (safe !== "") yield { type: "text-delta", text: safe };
          break;
        }
        case "reasoning-delta": {
          const safe = reasoning.push(event.text);
          if (safe !== "") yield { type: "reasoning-delta", text: safe };
          break;
        }
        case "tool-call":
          yield* flushed();
          yield {
            ...event,
            name: redactor.redactContent(event.name),
            arguments: redactor.redactContent(event.arguments),
          };
          break;
        case "replay":
          yield* flushed();
          yield { type: "replay", state: redactor.redactValue(event.state) };
          break;
        case "warning":
          yield* flushed();
          yield {
            type: "warning",
            warning: { ...event.warning, message: redactor.redact(event.warning.message) },
          };
          break;
        case "usage":
        case "finish":
          yield* flushed();
          yield event;
          break;
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown provider event ${JSON.stringify(exhaustive)}`);
        }
      }
    }
    yield* flushed();
  } catch (error) {
    throw redactor.redactError(error);
  }
}
