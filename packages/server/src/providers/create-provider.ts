import type { ProviderAdapter } from "@cursor/run";
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
 *
 * Each provider package (and its SDK) is loaded only when configured: a gateway start, and so a
 * restart after a crash, does not pay for SDKs it never calls.
 */
export async function createConfiguredProvider(config: GatewayConfig): Promise<ConfiguredProvider> {
  switch (config.provider) {
    case "openai-responses": {
      const { createOpenAIResponsesAdapter } = await import("@cursor/provider-openai-responses");
      return {
        adapter: createOpenAIResponsesAdapter({
          ...(config.openai.apiKey === undefined ? {} : { apiKey: config.openai.apiKey }),
          ...(config.openai.baseURL === undefined ? {} : { baseURL: config.openai.baseURL }),
        }),
        close: async () => undefined,
      };
    }
    case "openai-chat": {
      const { createOpenAIChatAdapter } = await import("@cursor/provider-openai-chat");
      return {
        adapter: createOpenAIChatAdapter({
          ...(config.openai.apiKey === undefined ? {} : { apiKey: config.openai.apiKey }),
          ...(config.openai.baseURL === undefined ? {} : { baseURL: config.openai.baseURL }),
        }),
        close: async () => undefined,
      };
    }
    case "anthropic": {
      const { createAnthropicAdapter } = await import("@cursor/provider-anthropic");
      return {
        adapter: createAnthropicAdapter({
          ...(config.anthropic.apiKey === undefined ? {} : { apiKey: config.anthropic.apiKey }),
          ...(config.anthropic.baseURL === undefined ? {} : { baseURL: config.anthropic.baseURL }),
        }),
        close: async () => undefined,
      };
    }
    case "simulated": {
      // The testkit's fake OpenAI Responses server with its prefix-cache simulation, on a
      // private loopback port: everything works offline, usage shows real cache behaviour.
      const [{ startFakeProvider }, { createOpenAIResponsesAdapter }] = await Promise.all([
        import("@cursor/testkit"),
        import("@cursor/provider-openai-responses"),
      ]);
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
