import type { CanonicalMessage } from "../canonical-message.js";
import { HistoryLog } from "../history-log.js";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
} from "../message-builders.js";
import type { CommitBatch, ModelLoopEvent, ModelLoopOptions } from "../model-loop-types.js";
import { createPromptSpec } from "../prompt-spec.js";
import type { ProviderAdapter } from "../provider-adapter.js";

export const promptSpec = createPromptSpec({
  instructions: "You are a coding agent.",
  tools: [
    {
      name: "read",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
});

export function context(name: string, text = `rules ${name}`): CanonicalMessage {
  return createRequestContextMessage({
    eventId: `ctx.${name}`,
    digest: name
      .padEnd(64, "0")
      .replace(/[^0-9a-f]/g, "0")
      .slice(0, 64),
    text,
  });
}

export function turn(name: string, text = `question ${name}`): CanonicalMessage {
  return createRuntimeMessage({
    eventId: `turn.${name}`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });
}

/** A history with one finished turn: context, runtime message, final answer of run `r0`. */
export function historyWithOneTurn(): HistoryLog {
  return new HistoryLog({
    messages: [
      context("a"),
      turn("m0", "first question ".repeat(20)),
      createAssistantMessage({ runId: "r0", step: 0, text: "first answer ".repeat(20) }),
    ],
  });
}

/** Records commits and events; `options` fills the loop's required inputs. */
export function harness(history: HistoryLog, provider: ProviderAdapter) {
  const commits: CommitBatch[] = [];
  const events: ModelLoopEvent[] = [];
  const options = (overrides: Partial<ModelLoopOptions> & { runId: string }): ModelLoopOptions => ({
    conversationId: "conv-1",
    model: "model-x",
    promptSpec,
    history,
    pending: [],
    provider,
    commit: (batch) => {
      commits.push(batch);
    },
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  return { commits, events, options };
}
