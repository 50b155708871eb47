import type { CanonicalMessage } from "./canonical-message.js";
import { createUserMessage } from "./message-builders.js";
import type { ModelRequest } from "./model-request.js";
import { createPromptSpec } from "./prompt-spec.js";
import {
  defaultTranscriptToolResultChars,
  renderMessage,
  splitTurns,
} from "./render-transcript.js";
import { countTextTokens } from "./token-count.js";
import { toModelRequest } from "./to-model-request.js";

export const defaultSummarizerInputTokens = 100_000;
export const summarizerInputMessageId = "summarizer:input";

export interface SummarizerRequestOptions {
  readonly conversationId: string;
  /** See `ModelRequest.cacheScope`. */
  readonly cacheScope?: string | undefined;
  readonly model: string;
  /** The summariser's instructions (prompt text owned by the caller). */
  readonly instructions: string;
  /** The compactable history, oldest first. */
  readonly messages: readonly CanonicalMessage[];
  /** Text after the transcript in the final user message, e.g. "Summarise the above." */
  readonly finalUserText?: string;
  /** Token budget of the whole request; oldest turns are dropped until it fits. */
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  readonly maxToolResultChars?: number;
  readonly countTokens?: (text: string) => number;
}

/** Keeps the end of `text` (the most recent part) so that it fits in `tokens`. */
function keepTail(text: string, tokens: number, countTokens: (text: string) => number): string {
  const total = countTokens(text);
  if (total <= tokens) return text;
  const chars = Math.max(0, Math.floor((text.length * tokens) / total) - 32);
  return `[… cut …]\n${text.slice(text.length - chars)}`;
}

/**
 * The request that asks a model to summarise the compactable history: no tools, the caller's
 * instructions, and one user message holding the rendered transcript (so it always ends with a
 * user message and carries no tool rounds or replay state a provider could reject). Leading
 * summaries of earlier epochs are always kept; then the newest turns that fit the budget, with a
 * note of how many older turns were left out. Deterministic.
 */
export function buildSummarizerRequest(options: SummarizerRequestOptions): ModelRequest {
  const countTokens = options.countTokens ?? countTextTokens;
  const budget = options.maxInputTokens ?? defaultSummarizerInputTokens;
  const toolChars = options.maxToolResultChars ?? defaultTranscriptToolResultChars;
  const render = (turn: readonly CanonicalMessage[]) =>
    turn.map((message) => renderMessage(message, toolChars)).join("\n\n");

  let firstTurnMessage = 0;
  while (options.messages[firstTurnMessage]?.kind === "summary") firstTurnMessage += 1;
  const preamble = render(options.messages.slice(0, firstTurnMessage));
  const turns = splitTurns(options.messages.slice(firstTurnMessage)).map(render);

  const finalText = options.finalUserText ?? "";
  let remaining =
    budget -
    countTokens(options.instructions) -
    countTokens(finalText) -
    countTokens(preamble) -
    64;
  const kept: string[] = [];
  for (let i = turns.length - 1; i >= 0; i -= 1) {
    const tokens = countTokens(turns[i]!);
    if (tokens <= remaining) {
      kept.unshift(turns[i]!);
      remaining -= tokens;
      continue;
    }
    // The newest turn alone is too large: keep its most recent part rather than nothing.
    if (kept.length === 0 && remaining > 0)
      kept.unshift(keepTail(turns[i]!, remaining, countTokens));
    break;
  }
  const omitted = turns.length - kept.length;
  const sections = [
    ...(preamble === "" ? [] : [preamble]),
    ...(omitted > 0 ? [`[${omitted} earlier turn${omitted === 1 ? "" : "s"} omitted]`] : []),
    ...kept,
  ];
  const transcript = `<transcript>\n${sections.join("\n\n")}\n</transcript>`;
  return toModelRequest({
    conversationId: options.conversationId,
    cacheScope: options.cacheScope,
    model: options.model,
    promptSpec: createPromptSpec({ instructions: options.instructions, tools: [] }),
    messages: [
      createUserMessage({
        id: summarizerInputMessageId,
        content: [
          { type: "text", text: finalText === "" ? transcript : `${transcript}\n\n${finalText}` },
        ],
      }),
    ],
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  });
}
