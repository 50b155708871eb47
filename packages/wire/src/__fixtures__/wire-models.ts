import type { WireModel } from "../ports.js";

/** The checkpoint secret of the wire's own tests (the conversation-state MAC). */
export const testSecret = "wire-test-checkpoint-secret-0123456789abcdef";

/** Two BYOK models as a gateway would list them; the first is the default. */
export const testModels: readonly WireModel[] = [
  {
    id: "byok-gpt",
    displayName: "GPT (BYOK)",
    provider: "openai-responses",
    contextWindowTokens: 400_000,
  },
  { id: "byok-claude", displayName: "Claude (BYOK)", provider: "anthropic" },
];
