import {
  renderAnthropicSegments,
  renderOpenAIChatSegments,
  renderOpenAIResponsesSegments,
} from "@cursor/fake-provider";
import type { PromptSegment } from "@cursor/fake-provider";

/** The wire formats the gateway sends. */
export type ProviderFormat = "openai-responses" | "openai-chat" | "anthropic";

export const providerFormatLabels: Readonly<Record<ProviderFormat, string>> = {
  "openai-responses": "OpenAI Responses",
  "openai-chat": "OpenAI Chat Completions",
  anthropic: "Anthropic Messages",
};

type JsonRecord = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The format of a provider body. `hint` is a provider id as the gateway's request log names it
 * (`openai-responses`, `openai-chat`, `anthropic`); otherwise the body's shape decides: Responses
 * has `input`, Anthropic has `messages` with `max_tokens` or a top-level `system`, Chat the rest.
 */
export function detectProviderFormat(body: unknown, hint?: string): ProviderFormat | undefined {
  if (hint === "openai-responses" || hint === "openai-chat" || hint === "anthropic") return hint;
  if (!isRecord(body)) return undefined;
  if ("input" in body || typeof body.instructions === "string") return "openai-responses";
  if (Array.isArray(body.messages)) {
    return "max_tokens" in body || "system" in body ? "anthropic" : "openai-chat";
  }
  return undefined;
}

/**
 * The body as the provider's prefix cache sees it: segments in prefix order (tools, schema,
 * instructions / system, then each history item; Anthropic blocks without `cache_control`), each
 * with its path, exact bytes and o200k token count (a stand-in for Anthropic's tokenizer).
 */
export function promptSegments(body: JsonRecord, format: ProviderFormat): readonly PromptSegment[] {
  switch (format) {
    case "openai-responses":
      return renderOpenAIResponsesSegments(body);
    case "openai-chat":
      return renderOpenAIChatSegments(body);
    case "anthropic":
      return renderAnthropicSegments(body).segments;
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown provider format ${String(exhaustive)}`);
    }
  }
}

/**
 * The fields that choose the cache a request is looked up in: OpenAI `model` and
 * `prompt_cache_key`; Anthropic `model`, `tool_choice` and `thinking`. Requests whose namespaces
 * differ share nothing, however equal their prompts are.
 */
export function cacheNamespaceFields(body: JsonRecord, format: ProviderFormat): JsonRecord {
  return format === "anthropic"
    ? { model: body.model, tool_choice: body.tool_choice, thinking: body.thinking }
    : { model: body.model, prompt_cache_key: body.prompt_cache_key };
}

/** Reads `input[41].content[0].text`-style paths (as `PromptSegment.path` writes them). */
export function valueAtPath(root: unknown, path: string): unknown {
  const steps = path.match(/[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\]/g) ?? [];
  let value = root;
  for (const step of steps) {
    if (step.startsWith('["')) {
      value = isRecord(value) ? value[JSON.parse(step.slice(1, -1)) as string] : undefined;
    } else if (step.startsWith("[")) {
      value = Array.isArray(value) ? value[Number(step.slice(1, -1))] : undefined;
    } else {
      value = isRecord(value) ? value[step] : undefined;
    }
  }
  return value;
}
