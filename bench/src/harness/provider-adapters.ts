import { createAnthropicAdapter } from "@cursor/provider-anthropic";
import { createOpenAIChatAdapter } from "@cursor/provider-openai-chat";
import { createOpenAIResponsesAdapter } from "@cursor/provider-openai-responses";
import type { ProviderAdapter } from "@cursor/run";
import type { BenchProvider } from "./gateway-harness.js";

/**
 * The provider package the gateway uses for `provider`, configured as the gateway configures it,
 * for its `serialize` only (nothing is sent: the key is a placeholder).
 */
export function serializingAdapter(provider: BenchProvider): ProviderAdapter {
  switch (provider) {
    case "openai-responses":
      return createOpenAIResponsesAdapter({ apiKey: "unused" });
    case "openai-chat":
      return createOpenAIChatAdapter({ apiKey: "unused" });
    case "anthropic":
      return createAnthropicAdapter({ apiKey: "unused" });
    default: {
      const exhaustive: never = provider;
      throw new Error(`unknown provider ${String(exhaustive)}`);
    }
  }
}

export const providerLabels: Readonly<Record<BenchProvider, string>> = {
  "openai-responses": "OpenAI Responses",
  "openai-chat": "OpenAI Chat Completions",
  anthropic: "Anthropic Messages",
};
