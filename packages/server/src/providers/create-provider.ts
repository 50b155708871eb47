import { createAnthropicAdapter } from "@cursor/provider-anthropic";
import { createOpenAIChatAdapter } from "@cursor/provider-openai-chat";
import { createOpenAIResponsesAdapter } from "@cursor/provider-openai-responses";
import type { ProviderAdapter } from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import type { GatewayConfig } from "../config.js";

export interface ConfiguredProvider {
  readonly adapter: ProviderAdapter;
  /** Where `simulated` runs its in-process fake provider; undefined for real providers. */
  readonly simulatedURL?: string;
  close(): Promise<void>;
}

/**
 * The provider adapter the configuration names. The user's key goes to the provider package
 * and nowhere else: it is not logged, stored, or put in a checkpoint.
 */
export async function createConfiguredProvider(config: GatewayConfig): Promise<ConfiguredProvider> {
  switch (config.provider) {
    case "openai-responses":
      return {
        adapter: createOpenAIResponsesAdapter({
          ...(config.openai.apiKey === undefined ? {} : { apiKey: config.openai.apiKey }),
          ...(config.openai.baseURL === undefined ? {} : { baseURL: config.openai.baseURL }),
        }),
        close: async () => undefined,
      };
    case "openai-chat":
      return {
        adapter: createOpenAIChatAdapter({
          ...(config.openai.apiKey === undefined ? {} : { apiKey: config.openai.apiKey }),
          ...(config.openai.baseURL === undefined ? {} : { baseURL: config.openai.baseURL }),
        }),
        close: async () => undefined,
      };
    case "anthropic":
      return {
        adapter: createAnthropicAdapter({
          ...(config.anthropic.apiKey === undefined ? {} : { apiKey: config.anthropic.apiKey }),
          ...(config.anthropic.baseURL === undefined ? {} : { baseURL: config.anthropic.baseURL }),
        }),
        close: async () => undefined,
      };
    case "simulated": {
      // The testkit's fake OpenAI Responses server with its prefix-cache simulation, on a
      // private loopback port: everything works offline, usage shows real cache behaviour.
      const fake = await startFakeProvider({ host: "127.0.0.1", port: 0 });
      return {
        adapter: createOpenAIResponsesAdapter({ apiKey: "simulated", baseURL: fake.openaiBaseURL }),
        simulatedURL: fake.url,
        close: () => fake.close(),
      };
    }
    default: {
      const exhaustive: never = config.provider;
      throw new Error(`unknown provider ${String(exhaustive)}`);
    }
  }
}
