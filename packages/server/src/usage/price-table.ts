import { z } from "zod";
import { readJsonConfigFile } from "../json-config-file.js";
import { defaultPriceEntries, simulatedPriceEntry } from "./default-prices.js";
import { priceProviders } from "./price-entry.js";
import type { PriceEntry } from "./price-entry.js";

export type { PriceEntry } from "./price-entry.js";

/** The cost of some tokens, in USD. */
export interface CallCost {
  readonly usd: number;
  /** What the same tokens would cost with nothing cached or written to a cache. */
  readonly uncachedUsd: number;
  /** `uncachedUsd - usd`: negative when cache writes cost more than the reads saved. */
  readonly savedUsd: number;
}

export interface TokenCounts {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens?: number;
  readonly outputTokens: number;
}

const perMillion = 1_000_000;

/**
 * Prices per provider model (USD per million tokens): the built-in defaults (see
 * `defaultPriceSource`), overridden or extended by `CURSOR_GATEWAY_PRICES_FILE`. A lookup tries
 * the exact model id, then the id without a date suffix (`-2025-08-07`, `-20250929`) or
 * `-latest`, then the longest matching `prefix*`; a catalog provider's own entries before the
 * `openai` ones.
 */
export class PriceTable {
  readonly #entries: readonly PriceEntry[];

  constructor(entries: readonly PriceEntry[]) {
    this.#entries = entries;
  }

  /** The built-in table (and the simulated provider's illustration price). */
  static defaults(): PriceTable {
    return new PriceTable([...defaultPriceEntries, simulatedPriceEntry]);
  }

  get entries(): readonly PriceEntry[] {
    return this.#entries;
  }

  /** `overrides` first: an entry of theirs replaces a default with the same provider and model. */
  withOverrides(overrides: readonly PriceEntry[], { replace = false } = {}): PriceTable {
    if (replace) return new PriceTable(overrides);
    const key = (entry: PriceEntry) => `${entry.provider}\u0000${entry.model}`;
    const overridden = new Set(overrides.map(key));
    return new PriceTable([
      ...overrides,
      ...this.#entries.filter((entry) => !overridden.has(key(entry))),
    ]);
  }

  /** The price of `model` on `provider` (a catalog provider name), if the table has one. */
  lookup({ provider, model }: { provider: string; model: string }): PriceEntry | undefined {
    const providers: string[] =
      provider === "openai-responses" || provider === "openai-chat"
        ? [provider, "openai"]
        : [provider];
    const base = model.replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, "");
    for (const candidate of providers) {
      const own = this.#entries.filter((entry) => entry.provider === candidate);
      const exact =
        own.find((entry) => entry.model === model) ?? own.find((entry) => entry.model === base);
      if (exact !== undefined) return exact;
      const prefixed = own
        .filter((entry) => entry.model.endsWith("*") && model.startsWith(entry.model.slice(0, -1)))
        .sort((a, b) => b.model.length - a.model.length)[0];
      if (prefixed !== undefined) return prefixed;
    }
    return undefined;
  }
}

/**
 * What `tokens` cost at `price`. `inputTokens` counts every input token (cached and written ones
 * included, as providers report them), so the uncached rest is billed at the input price.
 */
export function costOf(price: PriceEntry, tokens: TokenCounts): CallCost {
  const write1h = Math.min(tokens.cacheWrite1hTokens ?? 0, tokens.cacheWriteTokens);
  const write5m = tokens.cacheWriteTokens - write1h;
  const uncachedInput = Math.max(
    0,
    tokens.inputTokens - tokens.cachedInputTokens - tokens.cacheWriteTokens,
  );
  const usd =
    (uncachedInput * price.input +
      tokens.cachedInputTokens * price.cachedInput +
      write5m * price.cacheWrite5m +
      write1h * price.cacheWrite1h +
      tokens.outputTokens * price.output) /
    perMillion;
  const uncachedUsd =
    (tokens.inputTokens * price.input + tokens.outputTokens * price.output) / perMillion;
  return { usd, uncachedUsd, savedUsd: uncachedUsd - usd };
}

const price = z
  .number()
  .finite()
  .min(0, "a price is never negative")
  .max(10_000, "at most 10000 USD per million tokens");
const boundedText = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max, `at most ${max} characters`);

const priceEntrySchema = z.strictObject({
  provider: z.enum(priceProviders),
  model: boundedText(256).regex(/^[^*]*\*?$/, "a model id, or a prefix ending in *"),
  input: price,
  cachedInput: price,
  cacheWrite5m: price.optional(),
  cacheWrite1h: price.optional(),
  output: price,
  note: boundedText(300).optional(),
  source: boundedText(500).optional(),
  asOf: boundedText(40).optional(),
});

const pricesFileSchema = z.strictObject({
  source: boundedText(500),
  asOf: boundedText(40),
  replaceDefaults: z.boolean().optional(),
  prices: z.array(priceEntrySchema),
});

export type PricesFileResult =
  | { readonly success: true; readonly table: PriceTable }
  | { readonly success: false; readonly issues: readonly string[] };

/**
 * Reads `CURSOR_GATEWAY_PRICES_FILE`: `{"source", "asOf", "replaceDefaults"?, "prices": [{provider,
 * model, input, cachedInput, cacheWrite5m?, cacheWrite1h?, output, note?, source?, asOf?}]}`
 * (USD per million tokens). A write price left out is the input price (OpenAI bills no writes);
 * `cacheWrite1h` left out is `cacheWrite5m`. Its entries replace the defaults of the same provider
 * and model (all of them with `replaceDefaults`). Every problem names the file, entry and field.
 */
export function readPricesFile(path: string): PricesFileResult {
  const read = readJsonConfigFile({
    path,
    variable: "CURSOR_GATEWAY_PRICES_FILE",
    schema: pricesFileSchema,
  });
  if (!read.success) return read;
  const { data: file, where } = read;
  const issues: string[] = [];
  const seen = new Map<string, number>();
  const entries = file.prices.map((entry, index): PriceEntry => {
    const key = `${entry.provider} ${entry.model}`;
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, index);
    else issues.push(`${where}: prices[${index}]: ${key} is already priced by prices[${earlier}]`);
    const cacheWrite5m = entry.cacheWrite5m ?? entry.input;
    return {
      provider: entry.provider,
      model: entry.model,
      input: entry.input,
      cachedInput: entry.cachedInput,
      cacheWrite5m,
      cacheWrite1h: entry.cacheWrite1h ?? cacheWrite5m,
      output: entry.output,
      ...(entry.note === undefined ? {} : { note: entry.note }),
      source: { source: entry.source ?? file.source, asOf: entry.asOf ?? file.asOf },
    };
  });
  if (issues.length > 0) return { success: false, issues };
  return {
    success: true,
    table: PriceTable.defaults().withOverrides(entries, { replace: file.replaceDefaults === true }),
  };
}
