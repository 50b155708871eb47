import type { RunEvent, RunSink } from "../run-events.js";
import type { SecretRedactor } from "./secret-redactor.js";

/**
 * The run's events as they leave the service, for every front door (the JSON SSE sink, the
 * Cursor wire): error, warning and retry texts redacted as diagnostics, model text and tool
 * arguments as content. The `head` carries history the provider boundary already redacted.
 */
export function redactingSink(sink: RunSink, redactor: SecretRedactor): RunSink {
  return {
    event: (event) => sink.event(redactEvent(event, redactor)),
    flush: () => sink.flush?.(),
  };
}

function redactEvent(event: RunEvent, redactor: SecretRedactor): RunEvent {
  if (redactor.size === 0) return event;
  switch (event.type) {
    case "text.delta":
    case "reasoning.delta":
      return { ...event, text: redactor.redactContent(event.text) };
    case "tool.call":
      return {
        ...event,
        name: redactor.redactContent(event.name),
        arguments: redactor.redactContent(event.arguments),
      };
    case "warning":
      return {
        ...event,
        warning: { ...event.warning, message: redactor.redact(event.warning.message) },
      };
    case "retry":
      return {
        ...event,
        error: { code: event.error.code, message: redactor.redact(event.error.message) },
      };
    case "run.ended":
      return event.error === undefined
        ? event
        : { ...event, error: { ...event.error, message: redactor.redact(event.error.message) } };
    case "run.started":
    case "usage":
    case "compaction.started":
    case "compaction":
    case "head":
      return event;
    default: {
      const exhaustive: never = event;
      throw new Error(`unknown run event ${JSON.stringify(exhaustive)}`);
    }
  }
}
