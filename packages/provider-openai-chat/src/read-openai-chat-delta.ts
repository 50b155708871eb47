import type { Warning } from "@cursor/run";
import { z } from "zod";

/** The text and reasoning one chunk's delta carries, whatever shape the server uses. */
export interface OpenAIChatDeltaContent {
  readonly text: string;
  readonly reasoning: string;
  readonly warnings: readonly Warning[];
}

const textLike = z.looseObject({ type: z.string(), text: z.string() });
/** Mistral's `thinking` part: its reasoning as a string or as text parts. */
const thinkingPart = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.union([z.string(), z.array(z.looseObject({ text: z.string().optional() }))]),
});
/** OpenRouter's `reasoning_details` entries; `reasoning.encrypted` ones hold no readable text. */
const reasoningDetail = z.union([
  z.looseObject({ type: z.literal("reasoning.text"), text: z.string().nullish() }),
  z.looseObject({ type: z.literal("reasoning.summary"), summary: z.string().nullish() }),
  z.looseObject({ type: z.literal("reasoning.encrypted") }),
]);

const unsupported = (message: string, path: string): Warning => ({
  type: "unsupported",
  message,
  path,
});

function thinkingText(part: z.infer<typeof thinkingPart>): string {
  return typeof part.thinking === "string"
    ? part.thinking
    : part.thinking.map((inner) => inner.text ?? "").join("");
}

/** `delta.content` as a string or as content parts (Mistral): answer text and reasoning. */
function readContent(content: unknown, path: string): OpenAIChatDeltaContent {
  if (content === undefined || content === null) return { text: "", reasoning: "", warnings: [] };
  if (typeof content === "string") return { text: content, reasoning: "", warnings: [] };
  if (!Array.isArray(content)) {
    return {
      text: "",
      reasoning: "",
      warnings: [unsupported("delta.content is neither text nor content parts; ignored", path)],
    };
  }
  let text = "";
  let reasoning = "";
  const warnings: Warning[] = [];
  for (const part of content) {
    const thinking = thinkingPart.safeParse(part);
    if (thinking.success) {
      reasoning += thinkingText(thinking.data);
      continue;
    }
    const plain = textLike.safeParse(part);
    if (plain.success && plain.data.type === "text") {
      text += plain.data.text;
    } else if (plain.success && plain.data.type === "reasoning") {
      reasoning += plain.data.text;
    } else {
      const type =
        typeof part === "object" && part !== null && "type" in part ? String(part.type) : "none";
      warnings.push(unsupported(`content part of type ${JSON.stringify(type)} ignored`, path));
    }
  }
  return { text, reasoning, warnings };
}

/** `reasoning_details` (OpenRouter): the readable text of its entries. */
function readDetails(details: unknown, path: string): { reasoning: string; warnings: Warning[] } {
  if (details === undefined || details === null) return { reasoning: "", warnings: [] };
  if (!Array.isArray(details)) {
    return {
      reasoning: "",
      warnings: [unsupported("delta.reasoning_details is not a list; ignored", path)],
    };
  }
  let reasoning = "";
  const warnings: Warning[] = [];
  for (const entry of details) {
    const parsed = reasoningDetail.safeParse(entry);
    if (!parsed.success) {
      warnings.push(unsupported("unknown reasoning_details entry ignored", path));
      continue;
    }
    if (parsed.data.type === "reasoning.text") reasoning += parsed.data.text ?? "";
    if (parsed.data.type === "reasoning.summary") reasoning += parsed.data.summary ?? "";
  }
  return { reasoning, warnings };
}

/**
 * Reads one delta of an OpenAI-compatible server. Reasoning comes as `reasoning_content`
 * (DeepSeek), `reasoning` (vLLM, OpenRouter, Ollama; a string or a list of text parts),
 * `reasoning_details` (OpenRouter, only when neither of the others is there: it repeats them),
 * or as `thinking` parts of a `content` list (Mistral); answer text as a `content` string or
 * `text` parts. A shape none of these describes is a warning, never an error: an odd server
 * must not fail (or retry) the call.
 */
export function readOpenAIChatDelta({
  delta,
  path,
}: {
  delta: Readonly<Record<string, unknown>>;
  path: string;
}): OpenAIChatDeltaContent {
  const warnings: Warning[] = [];
  let reasoning = "";
  const { reasoning_content: reasoningContent, reasoning: reasoningField } = delta;
  if (typeof reasoningContent === "string") {
    reasoning = reasoningContent;
  } else if (typeof reasoningField === "string") {
    reasoning = reasoningField;
  } else if (Array.isArray(reasoningField)) {
    const parts = readContent(reasoningField, `${path}.reasoning`);
    reasoning = parts.text + parts.reasoning;
    warnings.push(...parts.warnings);
  } else {
    if (reasoningContent !== undefined && reasoningContent !== null) {
      warnings.push(
        unsupported("delta.reasoning_content is not text; ignored", `${path}.reasoning_content`),
      );
    }
    if (reasoningField !== undefined && reasoningField !== null) {
      warnings.push(
        unsupported(
          "delta.reasoning is neither text nor reasoning parts; ignored",
          `${path}.reasoning`,
        ),
      );
    }
    const details = readDetails(delta["reasoning_details"], `${path}.reasoning_details`);
    reasoning = details.reasoning;
    warnings.push(...details.warnings);
  }
  const content = readContent(delta["content"], `${path}.content`);
  warnings.push(...content.warnings);
  return { text: content.text, reasoning: reasoning + content.reasoning, warnings };
}
