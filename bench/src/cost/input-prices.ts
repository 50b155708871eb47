import type { BenchProvider } from "../harness/gateway-harness.js";

/**
 * Published input prices (USD per million tokens) of the models the benchmark names. The
 * simulated cost only uses their ratios (cached 0.1× on both, Anthropic writes 1.25× for the
 * default 5-minute TTL); the dollar figures make them concrete for one session.
 */
export interface InputPrices {
  readonly model: string;
  readonly input: number;
  /** OpenAI cached input; Anthropic cache read. */
  readonly cachedRead: number;
  /** Anthropic cache write (5 min); OpenAI does not bill writes. */
  readonly cacheWrite: number;
  readonly note: string;
}

export const inputPrices: Readonly<Record<BenchProvider, InputPrices>> = {
  "openai-responses": {
    model: "gpt-5",
    input: 1.25,
    cachedRead: 0.125,
    cacheWrite: 1.25,
    note: "OpenAI gpt-5: $1.25 input, $0.125 cached input (0.1×); gpt-4.1 bills cached input at 0.25×, gpt-4o at 0.5×",
  },
  "openai-chat": {
    model: "gpt-5",
    input: 1.25,
    cachedRead: 0.125,
    cacheWrite: 1.25,
    note: "as OpenAI Responses",
  },
  anthropic: {
    model: "claude-sonnet-4-6",
    input: 3,
    cachedRead: 0.3,
    cacheWrite: 3.75,
    note: "Anthropic Claude Sonnet 4.x: $3 input, $0.30 cache read (0.1×), $3.75 cache write with the 5-minute TTL (1.25×)",
  },
};

/** Dollars for a session's input tokens under `prices`. */
export function inputDollars({
  prices,
  inputTokens,
  cachedTokens,
  cacheWriteTokens,
}: {
  prices: InputPrices;
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
}): number {
  const uncached = inputTokens - cachedTokens - cacheWriteTokens;
  return (
    (uncached * prices.input +
      cachedTokens * prices.cachedRead +
      cacheWriteTokens * prices.cacheWrite) /
    1_000_000
  );
}
