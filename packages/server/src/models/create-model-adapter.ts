import type { ProviderAdapter } from "@cursor/run";
import { createProviderFetch } from "../providers/provider-fetch.js";
import type { ModelConfig, ModelEffort } from "./model-config.js";

// One HTTP client (its keep-alive pools) for every provider SDK of the process.
let sharedFetch: typeof fetch | undefined;
const providerFetch = (): typeof fetch => (sharedFetch ??= createProviderFetch());

/**
 * Anthropic's reasoning setting is a thinking budget in tokens (≥ 1024, below `max_tokens`):
 * each effort gets a budget, and `max_tokens` grows by it so the answer keeps its room.
 */
export const anthropicThinkingBudgets: Record<Exclude<ModelEffort, "none">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 32_000,
};

/**
 * The provider adapter of one catalog entry. The key goes to the provider package and nowhere
 * else. Every SDK moves its bytes through the gateway's `createProviderFetch`. Each provider package (and its SDK) is loaded only when an entry first needs it: a
 * gateway start, and so a restart after a crash, does not pay for SDKs it never calls.
 * `simulated` is the gateway's in-process fake provider (for `simulated` entries).
 */
export async function createModelAdapter({
  entry,
  simulated,
}: {
  entry: ModelConfig;
  simulated: () => Promise<{ readonly openaiBaseURL: string; readonly accessToken: string }>;
}): Promise<ProviderAdapter> {
  const connection = {
    ...(entry.apiKey === undefined ? {} : { apiKey: entry.apiKey }),
    ...(entry.baseURL === undefined ? {} : { baseURL: entry.baseURL }),
    fetch: providerFetch(),
  };
  const openaiCache = {
    ...(entry.promptCacheRetention === undefined
      ? {}
      : { promptCacheRetention: entry.promptCacheRetention }),
    ...(entry.promptCacheOptions === undefined
      ? {}
      : { promptCacheOptions: entry.promptCacheOptions }),
  };
  switch (entry.provider) {
    case "openai-responses": {
      const { createOpenAIResponsesAdapter } = await import("@cursor/provider-openai-responses");
      return createOpenAIResponsesAdapter({
        ...connection,
        ...openaiCache,
        ...(entry.effort === undefined ? {} : { reasoningEffort: entry.effort }),
      });
    }
    case "openai-chat": {
      // @cursor/provider-openai-chat has no reasoning option: an entry's effort stays in the
      // catalog only.
      const { createOpenAIChatAdapter } = await import("@cursor/provider-openai-chat");
      return createOpenAIChatAdapter({ ...connection, ...openaiCache });
    }
    case "anthropic": {
      const { createAnthropicAdapter, defaultAnthropicMaxTokens } =
        await import("@cursor/provider-anthropic");
      // Thinking: as configured, else on exactly when an effort is set; its budget from the effort
      // (medium when thinking is on without one).
      const thinking = entry.thinking ?? (entry.effort !== undefined && entry.effort !== "none");
      const effort =
        entry.effort === undefined || entry.effort === "none" ? "medium" : entry.effort;
      const budget = thinking ? anthropicThinkingBudgets[effort] : undefined;
      return createAnthropicAdapter({
        ...connection,
        ...(entry.stablePrefixCacheTtl === undefined
          ? {}
          : { stablePrefixCacheTtl: entry.stablePrefixCacheTtl }),
        ...(budget === undefined
          ? {}
          : { thinking: { budgetTokens: budget }, maxTokens: defaultAnthropicMaxTokens + budget }),
      });
    }
    case "simulated": {
      // The testkit's fake OpenAI Responses server with its prefix-cache simulation: everything
      // works offline, usage shows real cache behaviour.
      const [{ createOpenAIResponsesAdapter }, fake] = await Promise.all([
        import("@cursor/provider-openai-responses"),
        simulated(),
      ]);
      return createOpenAIResponsesAdapter({
        apiKey: fake.accessToken,
        baseURL: fake.openaiBaseURL,
        fetch: providerFetch(),
        ...(entry.effort === undefined ? {} : { reasoningEffort: entry.effort }),
      });
    }
    default: {
      const exhaustive: never = entry.provider;
      throw new Error(`unknown provider ${String(exhaustive)}`);
    }
  }
}
