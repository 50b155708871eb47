import type { PriceEntry, PriceSource } from "./price-entry.js";

/**
 * Where the built-in prices come from, said plainly: nobody read them off the providers' pages
 * when this table was written. They are the list prices the AI model that wrote this code knew
 * from its training data (up to late 2025); prices change. Shown beside every cost.
 */
export const defaultPriceSource: PriceSource = {
  source:
    "built-in table: list prices as known to the AI model that wrote it (training data up to late 2025), not checked against the providers' pages — check https://openai.com/api/pricing and https://www.anthropic.com/pricing, and override with CURSOR_GATEWAY_PRICES_FILE",
  asOf: "2025-11",
};

const openai = (
  model: string,
  input: number,
  cachedInput: number,
  output: number,
): Omit<PriceEntry, "source"> => ({
  provider: "openai",
  model,
  input,
  cachedInput,
  // OpenAI bills no cache writes: a written token costs what any input token costs.
  cacheWrite5m: input,
  cacheWrite1h: input,
  output,
});

/** Anthropic's multipliers: cache read 0.1×, 5-minute write 1.25×, 1-hour write 2× the input. */
const anthropic = (
  model: string,
  input: number,
  output: number,
  note?: string,
): Omit<PriceEntry, "source"> => ({
  provider: "anthropic",
  model,
  input,
  cachedInput: round(input * 0.1),
  cacheWrite5m: round(input * 1.25),
  cacheWrite1h: round(input * 2),
  output,
  ...(note === undefined ? {} : { note }),
});

const round = (value: number) => Math.round(value * 1e6) / 1e6;

const assumedFamily =
  "assumed: a later model of this family, priced like its newest one in this table (unknown to the table's author)";

/** USD per million tokens. A model id with a date suffix falls back to its base id. */
export const defaultPriceEntries: readonly PriceEntry[] = [
  openai("gpt-5", 1.25, 0.125, 10),
  openai("gpt-5-codex", 1.25, 0.125, 10),
  openai("gpt-5-chat-latest", 1.25, 0.125, 10),
  openai("gpt-5.1", 1.25, 0.125, 10),
  openai("gpt-5.1-codex", 1.25, 0.125, 10),
  openai("gpt-5-mini", 0.25, 0.025, 2),
  openai("gpt-5-nano", 0.05, 0.005, 0.4),
  openai("gpt-4.1", 2, 0.5, 8),
  openai("gpt-4.1-mini", 0.4, 0.1, 1.6),
  openai("gpt-4.1-nano", 0.1, 0.025, 0.4),
  openai("gpt-4o", 2.5, 1.25, 10),
  openai("gpt-4o-mini", 0.15, 0.075, 0.6),
  openai("o3", 2, 0.5, 8),
  openai("o3-mini", 1.1, 0.55, 4.4),
  openai("o4-mini", 1.1, 0.275, 4.4),
  anthropic("claude-opus-4-5", 5, 25),
  anthropic("claude-opus-4-1", 15, 75),
  anthropic("claude-opus-4-0", 15, 75),
  anthropic("claude-opus-4", 15, 75),
  anthropic("claude-sonnet-4-5", 3, 15),
  anthropic("claude-sonnet-4-0", 3, 15),
  anthropic("claude-sonnet-4", 3, 15),
  anthropic("claude-3-7-sonnet", 3, 15),
  anthropic("claude-haiku-4-5", 1, 5),
  anthropic("claude-3-5-haiku", 0.8, 4),
  anthropic("claude-sonnet-4*", 3, 15, assumedFamily),
  anthropic("claude-haiku-4*", 1, 5, assumedFamily),
].map((entry) => ({ ...entry, source: defaultPriceSource }));

/**
 * The simulated provider has no bill: for an offline try-out its calls are priced like OpenAI's
 * gpt-5, so the report page shows what the same tokens would cost there.
 */
export const simulatedPriceEntry: PriceEntry = {
  ...openai("*", 1.25, 0.125, 10),
  provider: "simulated",
  note: "illustration: the simulated provider's calls priced like OpenAI gpt-5",
  source: defaultPriceSource,
};
