import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import { defaultPriceSource } from "./default-prices.js";
import { PriceTable, costOf, readPricesFile } from "./price-table.js";

const folder = mkdtempSync(join(tmpdir(), "prices-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
function file(content: unknown): string {
  files += 1;
  const path = join(folder, `prices-${files}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const table = PriceTable.defaults();

describe("costOf", () => {
  it("bills uncached input, cache reads, 5-minute and 1-hour writes and output at their prices", () => {
    const sonnet = table.lookup({ provider: "anthropic", model: "claude-sonnet-4-5" })!;
    const cost = costOf(sonnet, {
      inputTokens: 10_000,
      cachedInputTokens: 6_000,
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 1_000,
      outputTokens: 500,
    });
    // 1 000 uncached × $3 + 6 000 × $0.30 + 2 000 × $3.75 + 1 000 × $6 + 500 × $15, per million.
    expect(cost.usd).toBeCloseTo(0.0258, 12);
    expect(cost.uncachedUsd).toBeCloseTo(0.0375, 12);
    expect(cost.savedUsd).toBeCloseTo(0.0117, 12);
  });

  it("bills OpenAI's written tokens as plain input (OpenAI bills no cache writes)", () => {
    const gpt5 = table.lookup({ provider: "openai-responses", model: "gpt-5" })!;
    expect(
      costOf(gpt5, {
        inputTokens: 2_048,
        cachedInputTokens: 1_024,
        cacheWriteTokens: 0,
        outputTokens: 100,
      }).usd,
    ).toBeCloseTo((1_024 * 1.25 + 1_024 * 0.125 + 100 * 10) / 1e6, 12);
  });

  it("can cost more than uncached when writes are not read back", () => {
    const sonnet = table.lookup({ provider: "anthropic", model: "claude-sonnet-4-5" })!;
    const cost = costOf(sonnet, {
      inputTokens: 1_000,
      cachedInputTokens: 0,
      cacheWriteTokens: 1_000,
      outputTokens: 0,
    });
    expect(cost.savedUsd).toBeLessThan(0);
  });
});

describe("PriceTable.lookup", () => {
  it("matches exact ids, dated snapshots, -latest, families by the longest prefix, and both OpenAI APIs", () => {
    const model = (provider: string, id: string) => table.lookup({ provider, model: id })?.model;
    expect(model("openai-responses", "gpt-5")).toBe("gpt-5");
    expect(model("openai-chat", "gpt-5-mini-2025-08-07")).toBe("gpt-5-mini");
    expect(model("anthropic", "claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5");
    expect(model("anthropic", "claude-3-7-sonnet-latest")).toBe("claude-3-7-sonnet");
    expect(model("anthropic", "claude-sonnet-4-6")).toBe("claude-sonnet-4*");
    expect(model("simulated", "simulated-model")).toBe("*");
    expect(model("anthropic", "gpt-5")).toBeUndefined();
    expect(model("openai-chat", "deepseek-chat")).toBeUndefined();
  });

  it("says where every default comes from, and that the assumed ones are assumed", () => {
    for (const entry of table.entries) expect(entry.source).toEqual(defaultPriceSource);
    expect(defaultPriceSource.source).toContain("not checked against the providers' pages");
    expect(table.lookup({ provider: "anthropic", model: "claude-sonnet-4-6" })?.note).toMatch(
      /^assumed/,
    );
  });
});

describe("readPricesFile", () => {
  it("overrides and extends the defaults, each entry with its source and date", () => {
    const path = file({
      source: "our OpenAI contract",
      asOf: "2026-03-01",
      prices: [
        { provider: "openai", model: "gpt-5", input: 1, cachedInput: 0.1, output: 8 },
        {
          provider: "openai-chat",
          model: "deepseek-chat",
          input: 0.27,
          cachedInput: 0.07,
          output: 1.1,
          source: "DeepSeek's page",
          asOf: "2026-02",
        },
      ],
    });
    const read = readPricesFile(path);
    expect(read.success).toBe(true);
    if (!read.success) return;
    const gpt5 = read.table.lookup({ provider: "openai-responses", model: "gpt-5" })!;
    expect(gpt5).toMatchObject({
      input: 1,
      cacheWrite5m: 1,
      cacheWrite1h: 1,
      source: { source: "our OpenAI contract", asOf: "2026-03-01" },
    });
    expect(read.table.lookup({ provider: "openai-chat", model: "deepseek-chat" })?.source).toEqual({
      source: "DeepSeek's page",
      asOf: "2026-02",
    });
    // The rest of the defaults stay.
    expect(read.table.lookup({ provider: "anthropic", model: "claude-haiku-4-5" })?.source).toEqual(
      defaultPriceSource,
    );
  });

  it("replaces every default with replaceDefaults", () => {
    const read = readPricesFile(
      file({
        source: "ours",
        asOf: "2026-01",
        replaceDefaults: true,
        prices: [{ provider: "anthropic", model: "*", input: 1, cachedInput: 0.1, output: 2 }],
      }),
    );
    expect(read.success && read.table.entries).toHaveLength(1);
    expect(read.success && read.table.lookup({ provider: "openai-chat", model: "gpt-5" })).toBe(
      undefined,
    );
  });

  it("names the file, the entry and the field of every problem", () => {
    const missing = readPricesFile(join(folder, "none.json"));
    expect(missing).toEqual({
      success: false,
      issues: [
        `CURSOR_GATEWAY_PRICES_FILE (${join(folder, "none.json")}): cannot read the file (ENOENT)`,
      ],
    });
    const broken = file("{ nope");
    expect(readPricesFile(broken)).toMatchObject({
      success: false,
      issues: [expect.stringMatching(/^CURSOR_GATEWAY_PRICES_FILE \(.*\): not valid JSON/)],
    });
    const bad = file({
      source: "x",
      asOf: "y",
      prices: [
        { provider: "openai", model: "gpt-5", input: -1, cachedInput: 0, output: 1 },
        { provider: "mistral", model: "m", input: 1, cachedInput: 0, output: 1 },
        { provider: "openai", model: "gpt-5", input: 1, cachedInput: 0, output: 1, extra: 1 },
      ],
    });
    const result = readPricesFile(bad);
    expect(result.success).toBe(false);
    const issues = result.success ? [] : result.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringContaining("prices[0].input: a price is never negative"),
        expect.stringContaining("prices[1].provider"),
        expect.stringContaining("prices[2]"),
      ]),
    );
    const twice = file({
      source: "x",
      asOf: "y",
      prices: [
        { provider: "openai", model: "gpt-5", input: 1, cachedInput: 0, output: 1 },
        { provider: "openai", model: "gpt-5", input: 2, cachedInput: 0, output: 1 },
      ],
    });
    expect(readPricesFile(twice)).toMatchObject({
      success: false,
      issues: [expect.stringContaining("prices[1]: openai gpt-5 is already priced by prices[0]")],
    });
  });
});

describe("loadConfig: usage settings", () => {
  it("reads the retention and the prices file, and refuses bad values with the rest", () => {
    const prices = file({ source: "s", asOf: "2026", prices: [] });
    const config = loadConfig({
      CURSOR_GATEWAY_USAGE_RETENTION_DAYS: "7",
      CURSOR_GATEWAY_PRICES_FILE: prices,
    });
    expect(config.usageRetentionDays).toBe(7);
    expect(config.prices?.entries.length).toBe(PriceTable.defaults().entries.length);
    const issues = (environment: Record<string, string>) => {
      try {
        loadConfig(environment);
      } catch (error) {
        if (ConfigError.isInstance(error)) return error.issues;
        throw error;
      }
      return [];
    };
    expect(issues({ CURSOR_GATEWAY_USAGE_RETENTION_DAYS: "0" })).toEqual([
      'CURSOR_GATEWAY_USAGE_RETENTION_DAYS: between 1 and 3650 days (got "0")',
    ]);
    expect(issues({ CURSOR_GATEWAY_PRICES_FILE: join(folder, "absent.json") })).toEqual([
      `CURSOR_GATEWAY_PRICES_FILE (${join(folder, "absent.json")}): cannot read the file (ENOENT)`,
    ]);
  });
});
