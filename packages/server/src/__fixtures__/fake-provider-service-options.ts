import type { FakeProvider } from "@cursor/testkit";
import { expect } from "vitest";
import type { ConversationServiceOptions } from "../conversation-service-options.js";
import { GatewayMetrics } from "../http/metrics.js";
import { ModelCatalog } from "../models/model-catalog.js";
import type { GatewayStore } from "../store/gateway-store.js";

/**
 * Options of a `ConversationService` whose one model (`default`, OpenAI Responses `gpt-5`) is
 * served by the testkit's fake provider: one attempt per call, a 200 000-token window, a fixed
 * clock, and a logger that fails the test on any error (unless one is given).
 */
export function fakeProviderServiceOptions({
  store,
  fake,
  apiKey,
  checkpointSecret,
  ...overrides
}: {
  store: GatewayStore;
  fake: FakeProvider;
  apiKey: string;
  checkpointSecret: string;
} & Partial<ConversationServiceOptions>): ConversationServiceOptions {
  return {
    store,
    models: new ModelCatalog({
      models: [
        {
          id: "default",
          displayName: "Default",
          provider: "openai-responses",
          model: "gpt-5",
          apiKey,
          baseURL: fake.openaiBaseURL,
        },
      ],
      simulated: () => Promise.reject(new Error("no simulated models here")),
    }),
    contextWindow: 200_000,
    checkpointSecret,
    metrics: new GatewayMetrics({ processMetrics: false }),
    logger: { error: (details) => expect.fail(JSON.stringify(details)) },
    retry: { maxAttempts: 1 },
    secrets: [apiKey],
    now: () => new Date("2026-11-29T09:00:00Z"),
    ...overrides,
  };
}
