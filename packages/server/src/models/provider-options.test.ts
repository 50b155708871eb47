import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCursorPromptSpec } from "@cursor/request";
import { toModelRequest } from "@cursor/run";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import { anthropicThinkingBudgets } from "./create-model-adapter.js";
import { ModelCatalog } from "./model-catalog.js";
import type { ModelConfig } from "./model-config.js";
import { readModelsFile } from "./models-file.js";

const dir = mkdtempSync(join(tmpdir(), "provider-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const environment = {
  OPENAI_KEY: "sk-options-openai-0123456789",
  ANTHROPIC_KEY: "sk-ant-options-0123456789",
};

function modelsFile(models: readonly Record<string, unknown>[]): string {
  const path = join(dir, `models-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ models }));
  return path;
}

const openai = {
  id: "o",
  displayName: "O",
  provider: "openai-responses",
  model: "gpt-5",
  apiKeyEnv: "OPENAI_KEY",
};
const chat = {
  id: "c",
  displayName: "C",
  provider: "openai-chat",
  model: "gpt-5",
  apiKeyEnv: "OPENAI_KEY",
};
const claude = {
  id: "a",
  displayName: "A",
  provider: "anthropic",
  model: "claude-sonnet-4-6",
  apiKeyEnv: "ANTHROPIC_KEY",
};

function issues(result: ReturnType<typeof readModelsFile>): readonly string[] {
  return result.success ? [] : result.issues;
}

function errorOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

const request = toModelRequest({
  conversationId: "c1",
  model: "m",
  promptSpec: createCursorPromptSpec({}),
  messages: [],
});

async function bodyOf(entry: ModelConfig): Promise<Record<string, unknown>> {
  const catalog = new ModelCatalog({
    models: [entry],
    simulated: () => Promise.reject(new Error("no simulated entries here")),
  });
  return (await catalog.adapter(entry)).serialize(request).body as Record<string, unknown>;
}

describe("provider settings of a model entry", () => {
  it("reads them from the models file, per provider", () => {
    const result = readModelsFile({
      path: modelsFile([
        { ...openai, promptCacheRetention: "24h" },
        { ...chat, promptCacheOptions: { ttl: "30m" } },
        { ...claude, stablePrefixCacheTtl: "1h", thinking: true, effort: "high" },
      ]),
      environment,
    });
    expect(result.success && result.models.map(({ apiKey: _key, ...entry }) => entry)).toEqual([
      {
        id: "o",
        displayName: "O",
        provider: "openai-responses",
        model: "gpt-5",
        promptCacheRetention: "24h",
      },
      {
        id: "c",
        displayName: "C",
        provider: "openai-chat",
        model: "gpt-5",
        promptCacheOptions: { ttl: "30m" },
      },
      {
        id: "a",
        displayName: "A",
        provider: "anthropic",
        model: "claude-sonnet-4-6",
        effort: "high",
        stablePrefixCacheTtl: "1h",
        thinking: true,
      },
    ]);
  });

  it("refuses both OpenAI cache settings at once, a setting of another provider, thinking that cannot be sized", () => {
    const file = modelsFile([
      { ...openai, promptCacheRetention: "in-memory", promptCacheOptions: { ttl: "30m" } },
      { ...openai, id: "o2", stablePrefixCacheTtl: "1h", thinking: false },
      { ...claude, promptCacheRetention: "24h" },
      { ...claude, id: "a2", thinking: true, effort: "none" },
      { ...claude, id: "a3", thinking: false, effort: "low" },
      { ...claude, id: "a4", promptCacheOptions: { ttl: "5m" } },
    ]);
    const where = `CURSOR_GATEWAY_MODELS_FILE (${file})`;
    expect(issues(readModelsFile({ path: file, environment }))).toEqual([
      `${where}: models[5].promptCacheOptions.ttl: Invalid input: expected "30m"`,
    ]);
    const valid = modelsFile([
      { ...openai, promptCacheRetention: "in-memory", promptCacheOptions: { ttl: "30m" } },
      { ...openai, id: "o2", stablePrefixCacheTtl: "1h", thinking: false },
      { ...claude, promptCacheRetention: "24h" },
      { ...claude, id: "a2", thinking: true, effort: "none" },
      { ...claude, id: "a3", thinking: false, effort: "low" },
    ]);
    const at = `CURSOR_GATEWAY_MODELS_FILE (${valid})`;
    expect(issues(readModelsFile({ path: valid, environment }))).toEqual([
      `${at}: models[0].promptCacheRetention and ${at}: models[0].promptCacheOptions exclude each other (the first for models before GPT-5.6, the second from GPT-5.6 on)`,
      `${at}: models[1].stablePrefixCacheTtl: only for anthropic (this model is openai-responses)`,
      `${at}: models[1].thinking: only for anthropic (this model is openai-responses)`,
      `${at}: models[2].promptCacheRetention: only for openai-responses and openai-chat (this model is anthropic)`,
      `${at}: models[3].thinking: on needs an effort other than none (it sets the thinking budget)`,
      `${at}: models[4].effort: low has no effect with thinking off (turn thinking on, or drop the effort)`,
    ]);
  });

  it("the single-provider variables give them too; both OpenAI cache variables are a config error", () => {
    const base = { OPENAI_API_KEY: environment.OPENAI_KEY };
    expect(
      loadConfig({ ...base, CURSOR_GATEWAY_PROMPT_CACHE_TTL: "30m", CURSOR_GATEWAY_EFFORT: "low" })
        .models[0],
    ).toMatchObject({
      provider: "openai-responses",
      effort: "low",
      promptCacheOptions: { ttl: "30m" },
    });
    expect(
      errorOf({
        ...base,
        CURSOR_GATEWAY_PROMPT_CACHE_TTL: "30m",
        CURSOR_GATEWAY_PROMPT_CACHE_RETENTION: "24h",
      }),
    ).toEqual([
      "CURSOR_GATEWAY_PROMPT_CACHE_RETENTION and CURSOR_GATEWAY_PROMPT_CACHE_TTL exclude each other (the first for models before GPT-5.6, the second from GPT-5.6 on)",
    ]);
    expect(errorOf({ ...base, CURSOR_GATEWAY_ANTHROPIC_THINKING: "on" })).toEqual([
      "CURSOR_GATEWAY_ANTHROPIC_THINKING: only for anthropic (this model is openai-responses)",
    ]);
    const anthropic = { ANTHROPIC_API_KEY: environment.ANTHROPIC_KEY };
    expect(
      loadConfig({
        ...anthropic,
        CURSOR_GATEWAY_ANTHROPIC_STABLE_PREFIX_TTL: "1h",
        CURSOR_GATEWAY_ANTHROPIC_THINKING: "on",
      }).models[0],
    ).toMatchObject({ provider: "anthropic", stablePrefixCacheTtl: "1h", thinking: true });
    expect(errorOf({ ...anthropic, CURSOR_GATEWAY_ANTHROPIC_THINKING: "maybe" })).toEqual([
      expect.stringMatching(/^CURSOR_GATEWAY_ANTHROPIC_THINKING: /),
    ]);
  });

  it("reach the provider bodies: cache retention and options, the stable prefix TTL, thinking on and off", async () => {
    const base = { displayName: "X", apiKey: "sk-body-0123456789" } as const;
    expect(
      await bodyOf({
        ...base,
        id: "r",
        provider: "openai-responses",
        model: "gpt-5",
        promptCacheRetention: "24h",
      }),
    ).toMatchObject({ prompt_cache_retention: "24h" });
    expect(
      await bodyOf({
        ...base,
        id: "c",
        provider: "openai-chat",
        model: "gpt-5",
        promptCacheOptions: { ttl: "30m" },
      }),
    ).toMatchObject({ prompt_cache_options: { ttl: "30m" } });
    const anthropic = {
      ...base,
      id: "a",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
    } as const;
    const stable = await bodyOf({ ...anthropic, stablePrefixCacheTtl: "1h" });
    expect(JSON.stringify(stable.system)).toContain('"ttl":"1h"');
    expect(stable.thinking).toBeUndefined();
    expect(await bodyOf({ ...anthropic, thinking: true })).toMatchObject({
      thinking: { type: "enabled", budget_tokens: anthropicThinkingBudgets.medium },
    });
    expect(await bodyOf({ ...anthropic, effort: "xhigh" })).toMatchObject({
      thinking: { type: "enabled", budget_tokens: anthropicThinkingBudgets.xhigh },
    });
    expect((await bodyOf({ ...anthropic, thinking: false })).thinking).toBeUndefined();
  });
});
