import type { CanonicalMessage, ContentPart } from "./canonical-message.js";

export const defaultFallbackSummaryHeader =
  "The conversation so far was compacted without a model summary. What is known from it:";
export const defaultFallbackSummaryChars = 8_000;

function clip(text: string, maxChars: number): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : `${trimmed.slice(0, maxChars)} […]`;
}

function partsText(parts: readonly ContentPart[]): string {
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/**
 * A summary built without a model, for when summarising fails: earlier summaries, the user's
 * requests (newest kept when over `maxChars`), the tools used and the last answer. Same messages
 * in, same text out.
 */
export function fallbackSummary({
  messages,
  header = defaultFallbackSummaryHeader,
  maxChars = defaultFallbackSummaryChars,
}: {
  messages: readonly CanonicalMessage[];
  header?: string;
  maxChars?: number;
}): string {
  const summaries: string[] = [];
  const requests: string[] = [];
  const toolUses = new Map<string, number>();
  let lastAnswer = "";
  for (const message of messages) {
    switch (message.kind) {
      case "summary":
        summaries.push(clip(message.text, Math.floor(maxChars / 2)));
        break;
      case "runtime":
      case "user": {
        const text = partsText(message.content);
        if (text.trim() !== "") requests.push(`- ${clip(text, 500)}`);
        break;
      }
      case "assistant":
        for (const call of message.toolCalls) {
          toolUses.set(call.name, (toolUses.get(call.name) ?? 0) + 1);
        }
        if (message.text.trim() !== "") lastAnswer = message.text;
        break;
      case "request-context":
      case "tool-result":
        break;
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message kind ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  const tools = [...toolUses.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, count]) => `${name} ×${count}`)
    .join(", ");
  const fixed = [
    header,
    ...(summaries.length > 0 ? [`Earlier summary:\n${summaries.join("\n\n")}`] : []),
    ...(tools === "" ? [] : [`Tools used: ${tools}.`]),
    ...(lastAnswer === "" ? [] : [`Last answer:\n${clip(lastAnswer, 1_000)}`]),
  ].join("\n\n");
  // The newest requests matter most: add them from the end until the budget is used.
  const kept: string[] = [];
  let used = fixed.length + 32;
  for (let i = requests.length - 1; i >= 0 && used + requests[i]!.length + 1 <= maxChars; i -= 1) {
    kept.unshift(requests[i]!);
    used += requests[i]!.length + 1;
  }
  const omitted = requests.length - kept.length;
  const requestSection =
    requests.length === 0
      ? []
      : [`User requests${omitted > 0 ? ` (${omitted} older omitted)` : ""}:\n${kept.join("\n")}`];
  return [fixed, ...requestSection].join("\n\n");
}
