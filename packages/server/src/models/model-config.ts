import type { ModelEffort, ProviderName } from "./model-kinds.js";
import type { ProviderOptions } from "./provider-options.js";

export { modelEfforts, providerNames } from "./model-kinds.js";
export type { ModelEffort, ProviderName } from "./model-kinds.js";

/** One configured BYOK model (an entry of the models file, or the single-provider variables). */
export interface ModelConfig extends ProviderOptions {
  /** What clients pick it by (a request's `model`, the Cursor picker's id). */
  readonly id: string;
  readonly displayName: string;
  readonly provider: ProviderName;
  /** The model id sent to the provider. */
  readonly model: string;
  /** The key, read from the environment variable the entry names; never logged or stored. */
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly effort?: ModelEffort;
}

/** The provider model id used when the single-provider variables name none. */
export const defaultProviderModels: Record<ProviderName, string> = {
  "openai-responses": "gpt-5",
  "openai-chat": "gpt-5",
  anthropic: "claude-sonnet-4-6",
  simulated: "simulated-model",
};
