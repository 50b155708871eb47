import { createCursorPromptSpec } from "@cursor/request";
import { toModelRequest } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { UnknownModelError } from "../conversation-errors.js";
import { anthropicThinkingBudgets } from "./create-model-adapter.js";
import { ModelCatalog } from "./model-catalog.js";
import type { ModelConfig } from "./model-config.js";

const models: [ModelConfig, ModelConfig, ModelConfig, ModelConfig] = [
  {
    id: "gpt-5-high",
    displayName: "GPT-5 (high)",
    provider: "openai-responses",
    model: "gpt-5",
    apiKey: "sk-catalog-openai-0123456789",
    effort: "high",
  },
  {
    id: "sonnet-think",
    displayName: "Sonnet (thinking)",
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    apiKey: "sk-ant-catalog-0123456789",
    effort: "medium",
  },
  {
    id: "chat",
    displayName: "Chat",
    provider: "openai-chat",
    model: "deepseek-chat",
    apiKey: "sk-catalog-chat-0123456789",
    effort: "low",
  },
  { id: "offline", displayName: "Offline", provider: "simulated", model: "simulated-model" },
];

function catalog() {
  let started = 0;
  let closed = 0;
  const instance = new ModelCatalog({
    models,
    simulated: async () => {
      started += 1;
      return {
        url: "http://127.0.0.1:1",
        openaiBaseURL: "http://127.0.0.1:1/v1",
        accessToken: "simulated-access-token",
        close: async () => {
          closed += 1;
        },
      };
    },
  });
  return { instance, counts: () => ({ started, closed }) };
}

const request = toModelRequest({
  conversationId: "c1",
  model: "m",
  promptSpec: createCursorPromptSpec({}),
  messages: [],
});

describe("ModelCatalog", () => {
  it("lists the entries as a picker shows them, the default first; keeps the keys for redaction", () => {
    const { instance } = catalog();
    expect(instance.list()).toEqual([
      { id: "gpt-5-high", displayName: "GPT-5 (high)", provider: "openai-responses" },
      { id: "sonnet-think", displayName: "Sonnet (thinking)", provider: "anthropic" },
      { id: "chat", displayName: "Chat", provider: "openai-chat" },
      { id: "offline", displayName: "Offline", provider: "simulated" },
    ]);
    expect(instance.default.id).toBe("gpt-5-high");
    expect(instance.secrets).toEqual([
      "sk-catalog-openai-0123456789",
      "sk-ant-catalog-0123456789",
      "sk-catalog-chat-0123456789",
    ]);
    expect(instance.hasSimulated).toBe(true);
  });

  it("selects by id; absent picks the default; an unlisted id is the default's provider model or refused", () => {
    const { instance } = catalog();
    expect(instance.select({ model: undefined })).toEqual({
      entry: models[0],
      providerModel: "gpt-5",
    });
    expect(instance.select({ model: "sonnet-think" })).toEqual({
      entry: models[1],
      providerModel: "claude-sonnet-4-6",
    });
    expect(instance.select({ model: "gpt-5-mini" })).toEqual({
      entry: models[0],
      providerModel: "gpt-5-mini",
    });
    let refused: unknown;
    try {
      instance.select({ model: "gpt-5-mini", unlisted: "reject" });
    } catch (error) {
      refused = error;
    }
    expect(UnknownModelError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ code: "unknown_model", modelId: "gpt-5-mini" });
    expect(instance.select({ model: "chat", unlisted: "reject" }).entry).toBe(models[2]);
  });

  it("creates each entry's adapter once, on first use, with the entry's effort", async () => {
    const { instance, counts } = catalog();
    expect(counts().started).toBe(0);
    const responses = await instance.adapter(models[0]);
    expect(await instance.adapter(models[0])).toBe(responses);
    expect(responses.id).toBe("openai-responses");
    expect(responses.serialize(request).body).toMatchObject({ reasoning: { effort: "high" } });
    const anthropic = await instance.adapter(models[1]);
    expect(anthropic.id).toBe("anthropic");
    expect(anthropic.serialize(request).body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: anthropicThinkingBudgets.medium },
    });
    const chat = await instance.adapter(models[2]);
    expect(chat.id).toBe("openai-chat");
    // The chat package has no reasoning setting: nothing of the effort reaches its body.
    expect(JSON.stringify(chat.serialize(request).body)).not.toMatch(/effort|reasoning/);
    expect(counts().started).toBe(0);
  });

  it("runs simulated entries on one fake provider, started once and closed with the catalog", async () => {
    const { instance, counts } = catalog();
    const [a, b] = await Promise.all([instance.adapter(models[3]), instance.simulated()]);
    expect(a.id).toBe("openai-responses");
    expect(b.url).toBe("http://127.0.0.1:1");
    expect(counts()).toEqual({ started: 1, closed: 0 });
    await instance.close();
    expect(counts()).toEqual({ started: 1, closed: 1 });
  });
});
