// Deterministic prompt material for tests: long enough to cross the 1024-token cache threshold.
const words = [
  "append",
  "prefix",
  "cache",
  "gateway",
  "history",
  "token",
  "request",
  "provider",
  "stable",
  "canonical",
  "message",
  "runtime",
  "context",
  "compaction",
  "epoch",
  "signature",
];

/** `count` pseudo-random words (a fixed linear congruential sequence). */
export function filler(count: number, seed = 1): string {
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.push(words[state % words.length]!);
  }
  return out.join(" ");
}

export const longInstructions = `You are a careful coding agent. ${filler(1400)}`;
