import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import { readModelsFile } from "./models-file.js";

const dir = mkdtempSync(join(tmpdir(), "models-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(content: unknown): string {
  files += 1;
  const path = join(dir, `models-${files}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const openaiKey = "sk-models-file-openai-0123456789";
const anthropicKey = "sk-ant-models-file-0123456789";
const environment = { MY_OPENAI_KEY: openaiKey, MY_ANTHROPIC_KEY: anthropicKey };
const valid = {
  models: [
    {
      id: "gpt-5-high",
      displayName: "GPT-5 (high)",
      provider: "openai-responses",
      model: "gpt-5",
      apiKeyEnv: "MY_OPENAI_KEY",
      effort: "high",
    },
    {
      id: "sonnet",
      displayName: "Claude Sonnet",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      apiKeyEnv: "MY_ANTHROPIC_KEY",
      baseURL: "https://anthropic.example/v1",
    },
    { id: "offline", displayName: "Offline", provider: "simulated", model: "simulated-model" },
  ],
};

function issuesOf(path: string, env: Record<string, string> = environment): readonly string[] {
  const result = readModelsFile({ path, environment: env });
  if (result.success) throw new Error("expected the file to be refused");
  return result.issues;
}

describe("readModelsFile", () => {
  it("reads every entry, in order, with the key from the variable it names", () => {
    const result = readModelsFile({ path: file(valid), environment });
    expect(result).toEqual({
      success: true,
      models: [
        {
          id: "gpt-5-high",
          displayName: "GPT-5 (high)",
          provider: "openai-responses",
          model: "gpt-5",
          apiKey: openaiKey,
          effort: "high",
        },
        {
          id: "sonnet",
          displayName: "Claude Sonnet",
          provider: "anthropic",
          model: "claude-sonnet-4-6",
          apiKey: anthropicKey,
          baseURL: "https://anthropic.example/v1",
        },
        { id: "offline", displayName: "Offline", provider: "simulated", model: "simulated-model" },
      ],
    });
  });

  it("names the file, the entry and the field of every problem", () => {
    const path = file({
      models: [
        { ...valid.models[0], provider: "openai-assistants" },
        { ...valid.models[1], baseURL: "ftp://x" },
        { ...valid.models[2], effort: "maximum", apiKey: "sk-in-the-file" },
      ],
    });
    const issues = issuesOf(path);
    expect(issues).toEqual([
      expect.stringMatching(
        new RegExp(`^CURSOR_GATEWAY_MODELS_FILE \\(${path}\\): models\\[0\\]\\.provider: `),
      ),
      `CURSOR_GATEWAY_MODELS_FILE (${path}): models[1].baseURL: an http(s) URL`,
      expect.stringMatching(/models\[2\]\.effort: Invalid option: expected one of "none"\|/),
      expect.stringMatching(/models\[2\]: Unrecognized key: "apiKey"$/),
    ]);
    // The value of an unknown field never shows.
    expect(issues.join("\n")).not.toContain("sk-in-the-file");
  });

  it("requires a key variable for real providers, and a set one; keys never in messages", () => {
    const path = file({
      models: [
        { ...valid.models[0], apiKeyEnv: undefined },
        { ...valid.models[1], apiKeyEnv: "UNSET_KEY" },
      ],
    });
    const issues = issuesOf(path);
    expect(issues).toEqual([
      `CURSOR_GATEWAY_MODELS_FILE (${path}): models[0].apiKeyEnv: required for provider openai-responses`,
      `CURSOR_GATEWAY_MODELS_FILE (${path}): models[1].apiKeyEnv: the environment variable UNSET_KEY is not set`,
    ]);
    expect(issues.join("\n")).not.toContain(openaiKey);
  });

  it("refuses duplicate ids, an empty list, a missing file and broken JSON", () => {
    const duplicate = file({ models: [valid.models[0], { ...valid.models[2], id: "gpt-5-high" }] });
    expect(issuesOf(duplicate)).toEqual([
      `CURSOR_GATEWAY_MODELS_FILE (${duplicate}): models[1].id: "gpt-5-high" is already the id of models[0]`,
    ]);
    const empty = file({ models: [] });
    expect(issuesOf(empty)).toEqual([
      `CURSOR_GATEWAY_MODELS_FILE (${empty}): models: at least one model`,
    ]);
    const missing = join(dir, "nope.json");
    expect(issuesOf(missing)).toEqual([
      `CURSOR_GATEWAY_MODELS_FILE (${missing}): cannot read the file (ENOENT)`,
    ]);
    const broken = file(`{"models": [{"id": "${openaiKey}"`);
    const [issue] = issuesOf(broken);
    expect(issue).toMatch(/^CURSOR_GATEWAY_MODELS_FILE \(.*\): not valid JSON/);
    // The engine's message may quote the file; ours does not.
    expect(issue).not.toContain(openaiKey);
  });
});

describe("loadConfig models", () => {
  it("the single-provider variables give one model", () => {
    const config = loadConfig({
      CURSOR_GATEWAY_PROVIDER: "openai-chat",
      CURSOR_GATEWAY_MODEL: "deepseek-chat",
      OPENAI_API_KEY: openaiKey,
      OPENAI_BASE_URL: "https://api.deepseek.com/v1",
    });
    expect(config.models).toEqual([
      {
        id: "byok/deepseek-chat",
        displayName: "deepseek-chat (your key)",
        provider: "openai-chat",
        model: "deepseek-chat",
        apiKey: openaiKey,
        baseURL: "https://api.deepseek.com/v1",
      },
    ]);
    expect(loadConfig({}).models).toEqual([
      {
        id: "byok/simulated-model",
        displayName: "simulated-model (your key)",
        provider: "simulated",
        model: "simulated-model",
      },
    ]);
    expect(loadConfig({ ANTHROPIC_API_KEY: anthropicKey }).models[0]).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-6",
    });
  });

  it("CURSOR_GATEWAY_MODELS_FILE is the model list; its problems are config errors with the rest", () => {
    const config = loadConfig({ CURSOR_GATEWAY_MODELS_FILE: file(valid), ...environment });
    expect(config.models.map((model) => model.id)).toEqual(["gpt-5-high", "sonnet", "offline"]);
    let caught: unknown;
    try {
      loadConfig({
        CURSOR_GATEWAY_MODELS_FILE: file({ models: [{ ...valid.models[0], apiKeyEnv: "NOPE" }] }),
        CURSOR_GATEWAY_TOKENS: "short",
      });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as ConfigError).issues).toEqual([
      expect.stringMatching(/models\[0\]\.apiKeyEnv: the environment variable NOPE is not set$/),
      "CURSOR_GATEWAY_TOKENS: token 1 of 1 is shorter than 16 characters",
    ]);
  });

  it("still names a missing single-provider key", () => {
    expect(() => loadConfig({ CURSOR_GATEWAY_PROVIDER: "anthropic" })).toThrow(
      "CURSOR_GATEWAY_PROVIDER=anthropic needs ANTHROPIC_API_KEY",
    );
  });
});
